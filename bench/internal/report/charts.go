package report

import (
	"fmt"
	"slices"
	"strings"
)

// point is one plotted value; a noisy one is drawn hollow.
type point struct {
	x, y  float64
	noisy bool
}

// series is one contender's points (line chart) or bars (bar chart).
type series struct {
	name   string
	points []point
}

// lineChart draws y against worker counts, one line per series. ref
// draws the dashed reference lines of a speedup chart: y = 1 and y = x.
func lineChart(title, ylabel string, ss []series, colors map[string]string, ytext func(float64) string, ref bool) string {
	var xs []float64
	ymax := 0.0
	for _, s := range ss {
		for _, p := range s.points {
			xs = append(xs, p.x)
			ymax = max(ymax, p.y)
		}
	}
	slices.Sort(xs)
	xs = slices.Compact(xs)
	var c canvas
	y := valueAxis(ymax, ytext)
	frame(&c, title, ylabel, y)
	x := axis{lo: xs[0], hi: xs[len(xs)-1], p0: plotLeft + 20, p1: panelW - plotRight - 20}
	for _, v := range xs {
		c.text(x.at(v), panelH-plotBot+14, "middle", "tick", fmt.Sprint(v))
	}
	c.text((plotLeft+panelW-plotRight)/2, panelH-plotBot+32, "middle", "tick", "workers (GOMAXPROCS)")
	if ref {
		speedupRefs(&c, x, y)
	}
	for _, s := range ss {
		drawLine(&c, s, x, y, colors[s.name])
	}
	legend(&c, names(ss), colors)
	noisyNote(&c, ss)
	return c.b.String()
}

// speedupRefs draws "as fast as sequential" and "perfect scaling".
func speedupRefs(c *canvas, x, y axis) {
	if 1 <= y.hi {
		c.line(x.p0, y.at(1), x.p1, y.at(1), "ref")
	}
	hi := min(x.hi, y.hi) // clip y = x to the plot
	if hi > x.lo {
		c.line(x.at(x.lo), y.at(x.lo), x.at(hi), y.at(hi), "ref")
	}
}

func drawLine(c *canvas, s series, x, y axis, color string) {
	c.printf(`<g class="series" data-contender="%s">`+"\n", esc(s.name))
	var pts []string
	for _, p := range s.points {
		pts = append(pts, fmt.Sprintf("%.1f,%.1f", x.at(p.x), y.at(p.y)))
	}
	c.printf(`<polyline points="%s" fill="none" stroke="%s" stroke-width="2"/>`+"\n", strings.Join(pts, " "), color)
	for _, p := range s.points {
		fill := color
		if p.noisy {
			fill = "white"
		}
		c.printf(`<circle cx="%.1f" cy="%.1f" r="4" fill="%s" stroke="%s" stroke-width="1.5"><title>%s ×%g: %s</title></circle>`+"\n",
			x.at(p.x), y.at(p.y), fill, color, esc(s.name), p.x, esc(y.tickText(p.y)))
	}
	c.printf("</g>\n")
}

// barChart draws one group of bars per series, one bar per worker count.
func barChart(title, ylabel string, ss []series, colors map[string]string, ytext func(float64) string) string {
	ymax, bars := 0.0, 0
	for _, s := range ss {
		bars += len(s.points)
		for _, p := range s.points {
			ymax = max(ymax, p.y)
		}
	}
	var c canvas
	y := valueAxis(ymax, ytext)
	frame(&c, title, ylabel, y)
	slot := float64(panelW-plotRight-plotLeft) / float64(bars+len(ss))
	pos := plotLeft + slot/2
	for _, s := range ss {
		drawBars(&c, s, pos, slot, y, colors[s.name])
		pos += slot * float64(len(s.points)+1)
	}
	legend(&c, names(ss), colors)
	noisyNote(&c, ss)
	return c.b.String()
}

func drawBars(c *canvas, s series, x0, slot float64, y axis, color string) {
	c.printf(`<g class="series" data-contender="%s">`+"\n", esc(s.name))
	for i, p := range s.points {
		x := x0 + float64(i)*slot
		top, base := y.at(p.y), y.at(0)
		fill, opacity := color, 1.0
		if p.noisy {
			fill, opacity = "white", 0.9
		}
		c.printf(`<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s" fill-opacity="%.1f" stroke="%s"><title>%s ×%g: %s</title></rect>`+"\n",
			x, top, slot*0.9, base-top, fill, opacity, color, esc(s.name), p.x, esc(y.tickText(p.y)))
		c.text(x+slot*0.45, base+12, "middle", "tick", fmt.Sprintf("×%g", p.x))
	}
	c.printf("</g>\n")
}

// noisyNote explains hollow markers where a panel has any.
func noisyNote(c *canvas, ss []series) {
	for _, s := range ss {
		for _, p := range s.points {
			if p.noisy {
				c.text(panelW-plotRight+12, panelH-plotBot, "start", "note", "hollow: noisy")
				return
			}
		}
	}
}

func names(ss []series) []string {
	n := make([]string, len(ss))
	for i, s := range ss {
		n[i] = s.name
	}
	return n
}
