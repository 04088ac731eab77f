package report

import (
	"fmt"
	"slices"

	"github.com/weftrt/weft/bench/internal/result"
)

// Plot is one SVG file of a run.
type Plot struct {
	File string
	SVG  string
}

// Plots returns the run's plots: speedup against workers for the
// fork-join workloads, the CPU costs and latencies of the efficiency
// suite, and the admission throughput. A suite that did not run has no
// plot.
func Plots(run *result.Run) []Plot {
	colors := contenderColors(run)
	sub := subtitle(run)
	var plots []Plot
	add := func(file, title string, panels []string) {
		if len(panels) > 0 {
			plots = append(plots, Plot{file, document(title, sub, panels)})
		}
	}
	add("speedup.svg", "weft beside the alternatives: speedup over sequential Go", speedupPanels(run, colors))
	add("efficiency.svg", "What a mostly idle pool costs (lower is better)", metricPanels(run, "efficiency", colors, barChart))
	add("admission.svg", "Admission: tasks through the pool's door", metricPanels(run, "admission", colors, linePanel))
	return plots
}

func subtitle(run *result.Run) string {
	m := run.Machine
	s := fmt.Sprintf("%s · %s, %d CPUs, %s · median of %d+ runs", run.Start.Format("2006-01-02 15:04"), m.CPU, m.CPUs, m.GoVersion, run.Settings.Reps)
	if m.PGO != "" {
		s += " · PGO " + m.PGO
	}
	if n := run.NoisyCount(); n > 0 {
		s += fmt.Sprintf(" · %d of %d results noisy (hollow)", n, len(run.Results))
	}
	return s
}

// contenderColors gives each contender a colour by first appearance, the
// same in every plot of the run.
func contenderColors(run *result.Run) map[string]string {
	colors := map[string]string{}
	for _, r := range run.Results {
		if _, ok := colors[r.Contender]; !ok {
			colors[r.Contender] = palette[len(colors)%len(palette)]
		}
	}
	return colors
}

// speedupSuites are the suites whose workloads are computations with a
// sequential baseline: the ones a speedup describes.
var speedupSuites = []string{"fork-join", "tree-sum"}

// speedupPanels draws one panel per fork-join workload: each contender's
// speedup over the sequential baseline against the worker count, or its
// wall time where the baseline did not run.
func speedupPanels(run *result.Run, colors map[string]string) []string {
	var panels []string
	for _, g := range groups(run) {
		if !slices.Contains(speedupSuites, g.suite) {
			continue
		}
		ss, ok := speedupSeries(run, g)
		if ok {
			panels = append(panels, lineChart(g.workload, "speedup over sequential", ss, colors, func(v float64) string { return fmt.Sprintf("%.3gx", v) }, true))
			continue
		}
		m := run.Results[g.idx[0]].Metrics[0]
		panels = append(panels, lineChart(g.workload, m.Label+" (lower is better)", medianSeries(run, g, 0), colors, m.Print, false))
	}
	return panels
}

func speedupSeries(run *result.Run, g group) ([]series, bool) {
	var ss []series
	for _, i := range g.idx {
		x, ok := run.Speedup(i)
		if !ok {
			return nil, false
		}
		r := &run.Results[i]
		ss = appendPoint(ss, r.Contender, point{float64(r.Workers), x, !run.Compare(i).Trusted})
	}
	return ss, true
}

func medianSeries(run *result.Run, g group, metric int) []series {
	var ss []series
	for _, i := range g.idx {
		r := &run.Results[i]
		ss = appendPoint(ss, r.Contender, point{float64(r.Workers), r.Summary(metric).Median, r.Noisy})
	}
	return ss
}

// appendPoint adds p to the series named name, starting one if needed;
// results come grouped by contender, so only the last series can match.
func appendPoint(ss []series, name string, p point) []series {
	if n := len(ss); n > 0 && ss[n-1].name == name {
		ss[n-1].points = append(ss[n-1].points, p)
		return ss
	}
	return append(ss, series{name: name, points: []point{p}})
}

type chartFunc func(title, ylabel string, ss []series, colors map[string]string, ytext func(float64) string) string

func linePanel(title, ylabel string, ss []series, colors map[string]string, ytext func(float64) string) string {
	return lineChart(title, ylabel, ss, colors, ytext, false)
}

// metricPanels draws one panel per metric of each of suite's workloads.
func metricPanels(run *result.Run, suite string, colors map[string]string, chart chartFunc) []string {
	var panels []string
	for _, g := range groups(run) {
		if g.suite != suite {
			continue
		}
		for j, m := range run.Results[g.idx[0]].Metrics {
			title := g.workload + ": " + m.Label
			panels = append(panels, chart(title, m.Label+" ("+string(m.Better)+" is better)", medianSeries(run, g, j), colors, m.Print))
		}
	}
	return panels
}
