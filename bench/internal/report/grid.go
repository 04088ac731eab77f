package report

import (
	"fmt"
	"slices"

	"github.com/weftrt/weft/bench/internal/result"
)

// table is one workload's results as plain cells, which the text and
// Markdown writers each lay out and escape their own way.
type table struct {
	title, doc string // "suite/workload" and the workload's one line
	cols       []column
	rows       [][]string // aligned with cols; "" is an empty cell
	wide       bool       // some ratio is hidden as too scattered: wideNote applies
	legend     []legendEntry
}

type column struct {
	head     string
	right    bool   // numbers: flush right
	optional bool   // dropped where no row has anything in it
	none     string // printed for an empty cell
}

type legendEntry struct{ name, doc string }

// wideNote explains the mark ratio puts on a ratio whose medians scatter
// too much; tables print it under themselves where the mark appears.
var wideNote = fmt.Sprintf("noise (±N%%): this row or the one it is compared with scatters by more than ±%.0f%% "+
	"(half the interquartile range), so no ratio is shown.", 100*result.MaxSpread)

func newTable(run *result.Run, g group) table {
	t := table{title: g.suite + "/" + g.workload, doc: g.doc, cols: columnsFor(run.Results[g.idx[0]].Metrics)}
	for _, i := range g.idx {
		cells, wide := row(run, i)
		t.rows = append(t.rows, cells)
		t.wide = t.wide || wide
		t.addLegend(&run.Results[i])
	}
	t.dropEmpty()
	return t
}

// columnsFor returns a table's columns: the first metric and its spread,
// the other metrics, then the comparisons and the note, which a table
// without anything in them leaves out (the wake table has no baseline).
func columnsFor(ms []result.Metric) []column {
	cols := []column{{head: "contender"}, {head: "workers", right: true},
		{head: ms[0].Label, right: true}, {head: "±", right: true}}
	for _, m := range ms[1:] {
		cols = append(cols, column{head: m.Label, right: true})
	}
	return append(cols,
		column{head: "vs seq", right: true, optional: true, none: "—"},
		column{head: "vs alt", right: true, optional: true, none: "—"},
		column{head: "best alt", optional: true},
		column{head: "note", optional: true})
}

// row returns result i's cells, and whether a ratio in them is hidden as
// too scattered.
func row(run *result.Run, i int) (cells []string, wide bool) {
	r := &run.Results[i]
	s := r.Summary(0)
	cells = []string{r.Contender, fmt.Sprint(r.Workers), r.Metrics[0].Print(s.Median), fmt.Sprintf("%.1f%%", 100*s.Spread())}
	for j, m := range r.Metrics[1:] {
		cells = append(cells, m.Print(r.Summary(j+1).Median))
	}
	c := run.Compare(i)
	vsSeq, wideSeq := ratio(c.VsBaseline, c.Trusted, c.BaselineSpread)
	vsAlt, wideAlt := ratio(c.VsBestAlt, c.Trusted, c.AltSpread)
	cells = append(cells, vsSeq, vsAlt, c.BestAlt, note(r, c, run.Settings.NoiseThreshold))
	return cells, wideSeq || wideAlt
}

// ratio prints a comparison: nothing where there is none, the spread
// instead of the ratio where the repetitions scatter too much for it to be
// a result, and the ratio otherwise, marked "?" where a busy machine
// measured one side of it (the preamble says what the mark means).
func ratio(x float64, trusted bool, spread float64) (cell string, wide bool) {
	mark := ""
	if !trusted {
		mark = "?"
	}
	switch {
	case x == 0:
		return "", false
	case result.TooWide(spread):
		return fmt.Sprintf("noise (±%.0f%%)%s", 100*spread, mark), true
	}
	return fmt.Sprintf("%.2fx%s", x, mark), false
}

func note(r *result.Result, c result.Comparison, threshold float64) string {
	switch {
	case r.Noisy:
		return fmt.Sprintf("noisy: %.2f CPUs busy elsewhere", r.Load.Cores())
	case !r.Load.Known:
		return "noise unknown"
	case !r.Load.Resolved(threshold):
		return "noise unknown: too short to tell (raise -mintime)"
	case !c.Trusted:
		return "compared with a noisy result"
	}
	return ""
}

// addLegend describes r's contender, once per table.
func (t *table) addLegend(r *result.Result) {
	if !slices.ContainsFunc(t.legend, func(e legendEntry) bool { return e.name == r.Contender }) {
		t.legend = append(t.legend, legendEntry{r.Contender, r.ContenderDoc})
	}
}

// dropEmpty removes the optional columns no row has anything in.
func (t *table) dropEmpty() {
	for j := len(t.cols) - 1; j >= 0; j-- {
		if t.cols[j].optional && !slices.ContainsFunc(t.rows, func(r []string) bool { return r[j] != "" }) {
			t.cols = slices.Delete(t.cols, j, j+1)
			for k := range t.rows {
				t.rows[k] = slices.Delete(t.rows[k], j, j+1)
			}
		}
	}
}

// grid returns the header and the rows, empty cells filled in.
func (t *table) grid() [][]string {
	g := [][]string{make([]string, len(t.cols))}
	for j, c := range t.cols {
		g[0][j] = c.head
	}
	for _, r := range t.rows {
		cells := slices.Clone(r)
		for j, c := range t.cols {
			if cells[j] == "" {
				cells[j] = c.none
			}
		}
		g = append(g, cells)
	}
	return g
}
