package report

import (
	"fmt"
	"html"
	"math"
	"strings"
)

// The SVG writers draw by hand: a few dozen lines of elements do not
// justify a plotting dependency in the core module.

// Panel geometry, in SVG user units.
const (
	panelW    = 460
	panelH    = 300
	plotLeft  = 64
	plotRight = 130 // room for the legend
	plotTop   = 40
	plotBot   = 48
	panelCols = 2
	titleH    = 50
)

// palette is the Okabe-Ito set, which stays distinct for colour-blind
// readers; contenders take colours in order of first appearance.
var palette = []string{"#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#999999"}

// canvas accumulates the elements of one SVG document.
type canvas struct {
	b strings.Builder
}

func (c *canvas) printf(format string, args ...any) { fmt.Fprintf(&c.b, format, args...) }

func (c *canvas) text(x, y float64, anchor, class, s string) {
	c.printf(`<text x="%.1f" y="%.1f" text-anchor="%s" class="%s">%s</text>`+"\n", x, y, anchor, class, esc(s))
}

func (c *canvas) line(x1, y1, x2, y2 float64, class string) {
	c.printf(`<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" class="%s"/>`+"\n", x1, y1, x2, y2, class)
}

func esc(s string) string { return html.EscapeString(s) }

// document wraps panels in an SVG root with a title and shared styles.
func document(title, subtitle string, panels []string) string {
	rows := (len(panels) + panelCols - 1) / panelCols
	w, h := panelCols*panelW, titleH+rows*panelH
	var c canvas
	c.printf(`<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif">`+"\n", w, h, w, h)
	c.printf("<style>%s</style>\n", style)
	c.printf(`<rect width="%d" height="%d" fill="white"/>`+"\n", w, h)
	c.text(float64(w)/2, 22, "middle", "title", title)
	c.text(float64(w)/2, 40, "middle", "subtitle", subtitle)
	for i, p := range panels {
		x, y := (i%panelCols)*panelW, titleH+(i/panelCols)*panelH
		c.printf(`<g class="panel" transform="translate(%d,%d)">`+"\n%s</g>\n", x, y, p)
	}
	c.printf("</svg>\n")
	return c.b.String()
}

const style = `
.title { font-size: 16px; font-weight: bold; }
.subtitle, .note { font-size: 11px; fill: #555; }
.ptitle { font-size: 13px; font-weight: bold; }
.tick { font-size: 10px; fill: #333; }
.axis { stroke: #333; stroke-width: 1; }
.grid { stroke: #ddd; stroke-width: 1; }
.ref { stroke: #888; stroke-width: 1; stroke-dasharray: 4 3; }
.legend { font-size: 11px; }
`

// axis maps data values onto a pixel range.
type axis struct {
	lo, hi   float64 // data
	p0, p1   float64 // pixels
	ticks    []float64
	tickText func(float64) string
}

func (a axis) at(v float64) float64 {
	if a.hi == a.lo {
		return (a.p0 + a.p1) / 2
	}
	return a.p0 + (v-a.lo)/(a.hi-a.lo)*(a.p1-a.p0)
}

// valueAxis is a y axis from 0 to a round number above max.
func valueAxis(max float64, text func(float64) string) axis {
	if !(max > 0) || math.IsInf(max, 0) {
		max = 1
	}
	step := niceStep(max / 4)
	top := math.Ceil(max*1.05/step) * step
	a := axis{lo: 0, hi: top, p0: panelH - plotBot, p1: plotTop, tickText: text}
	for v := 0.0; v <= top+step/2; v += step {
		a.ticks = append(a.ticks, v)
	}
	return a
}

// niceStep rounds x up to 1, 2 or 5 times a power of ten.
func niceStep(x float64) float64 {
	p := math.Pow(10, math.Floor(math.Log10(x)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= x {
			return m * p
		}
	}
	return 10 * p
}

// frame draws a panel's title, y grid and axes.
func frame(c *canvas, title, ylabel string, y axis) {
	c.text(plotLeft, 22, "start", "ptitle", title)
	for _, v := range y.ticks {
		py := y.at(v)
		c.line(plotLeft, py, panelW-plotRight, py, "grid")
		c.text(plotLeft-6, py+3, "end", "tick", y.tickText(v))
	}
	c.line(plotLeft, panelH-plotBot, panelW-plotRight, panelH-plotBot, "axis")
	c.line(plotLeft, panelH-plotBot, plotLeft, plotTop, "axis")
	c.printf(`<text transform="translate(14,%.1f) rotate(-90)" text-anchor="middle" class="tick">%s</text>`+"\n",
		float64(panelH-plotBot+plotTop)/2, esc(ylabel))
}

// legend draws one entry per series at the right of the plot.
func legend(c *canvas, names []string, colors map[string]string) {
	for i, n := range names {
		y := float64(plotTop + 8 + 16*i)
		x := float64(panelW - plotRight + 12)
		c.printf(`<rect x="%.1f" y="%.1f" width="10" height="10" fill="%s"/>`+"\n", x, y-8, colors[n])
		c.text(x+15, y+1, "start", "legend", n)
	}
}
