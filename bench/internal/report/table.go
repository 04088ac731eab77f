// Package report writes a run's results: the table people read, the
// benchfmt file benchstat reads, a JSON summary for scripts, and SVG
// plots.
package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/weftrt/weft/bench/internal/result"
)

// WriteTable writes the results as one small table per workload, with a
// header saying where and when they were measured and a footer saying how
// far to trust them.
func WriteTable(w io.Writer, run *result.Run) error {
	var b strings.Builder
	header(&b, run)
	for _, g := range groups(run) {
		workloadTable(&b, run, g)
	}
	footer(&b, run)
	_, err := io.WriteString(w, b.String())
	return err
}

func header(b *strings.Builder, run *result.Run) {
	m := run.Machine
	fmt.Fprintf(b, "weftbench %s  %s/%s  %s  %d CPUs  %s\n", run.Start.Format("2006-01-02 15:04"),
		m.GOOS, m.GOARCH, m.CPU, m.CPUs, m.GoVersion)
	fmt.Fprintf(b, "median of %d+ runs after %d warm-up; ± is half the interquartile range; ratios: times better than\n",
		run.Settings.Reps, run.Settings.Warmup)
	b.WriteString("sequential (vs seq) and than the best alternative at the same worker count (vs alt); above 1 is better.\n")
	if hasUnit(run, forkUnit) {
		b.WriteString("For the fork-join computations vs seq is the speedup, and CPU/fork the CPU time per fork the\n")
		b.WriteString("contender made (sequential: per fork the weft forms make, so the difference is what a fork costs).\n")
	}
}

// forkUnit is the fork-join workloads' CPU per fork, which the header
// explains: the sequential baseline's figure needs it.
const forkUnit = "cpu-ns/fork"

// hasUnit reports whether any result of run has a metric in unit.
func hasUnit(run *result.Run, unit string) bool {
	for _, r := range run.Results {
		for _, m := range r.Metrics {
			if m.Unit == unit {
				return true
			}
		}
	}
	return false
}

// group is the results of one workload, in run order.
type group struct {
	suite, workload, doc string
	idx                  []int // into run.Results
}

func groups(run *result.Run) []group {
	var gs []group
	for i, r := range run.Results {
		if n := len(gs); n == 0 || gs[n-1].suite != r.Suite || gs[n-1].workload != r.Workload {
			gs = append(gs, group{suite: r.Suite, workload: r.Workload, doc: r.Doc})
		}
		gs[len(gs)-1].idx = append(gs[len(gs)-1].idx, i)
	}
	return gs
}

func workloadTable(b *strings.Builder, run *result.Run, g group) {
	fmt.Fprintf(b, "\n%s/%s: %s\n", g.suite, g.workload, g.doc)
	metrics := run.Results[g.idx[0]].Metrics
	head := []string{"contender", "workers", metrics[0].Label, "±"}
	for _, m := range metrics[1:] {
		head = append(head, m.Label)
	}
	rows := [][]string{append(head, "vs seq", "vs alt", "")}
	for _, i := range g.idx {
		rows = append(rows, row(run, i))
	}
	b.WriteString(columns(rows, 1))
}

func row(run *result.Run, i int) []string {
	r := &run.Results[i]
	s := r.Summary(0)
	cells := []string{r.Contender, fmt.Sprint(r.Workers), r.Metrics[0].Print(s.Median), fmt.Sprintf("%.1f%%", 100*s.Spread())}
	for j, m := range r.Metrics[1:] {
		cells = append(cells, m.Print(r.Summary(j+1).Median))
	}
	c := run.Compare(i)
	return append(cells, ratio(c.VsBaseline, c.Trusted), altRatio(c), note(r, c, run.Settings.NoiseThreshold))
}

// ratio prints a comparison, or "?" where noise makes it meaningless.
func ratio(x float64, trusted bool) string {
	switch {
	case x == 0:
		return "-"
	case !trusted:
		return "?"
	}
	return fmt.Sprintf("%.2fx", x)
}

func altRatio(c result.Comparison) string {
	s := ratio(c.VsBestAlt, c.Trusted)
	if c.BestAlt != "" {
		s += " " + c.BestAlt
	}
	return s
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

func footer(b *strings.Builder, run *result.Run) {
	n := run.NoisyCount()
	fmt.Fprintf(b, "\n%d cases in %s.", len(run.Results), run.Elapsed.Round(1e9))
	if n == 0 {
		fmt.Fprintf(b, " The machine was quiet (under %.0f%% of its CPUs busy elsewhere) throughout.\n", 100*run.Settings.NoiseThreshold)
		return
	}
	fmt.Fprintf(b, " %d of them ran while more than %.0f%% of the CPUs were busy outside this process,\n",
		n, 100*run.Settings.NoiseThreshold)
	fmt.Fprintf(b, "even when measured again (-retries %d): ", run.Settings.Retries)
	b.WriteString("their ratios, and those compared with them, print as \"?\".\nRerun on a quiet machine to trust them.\n")
}

// columns lays rows out in aligned columns: the first left columns flush
// left, the others flush right, and the last (a note) left and unpadded.
func columns(rows [][]string, left int) string {
	width := make([]int, len(rows[0]))
	for _, r := range rows {
		for j, c := range r {
			width[j] = max(width[j], len([]rune(c)))
		}
	}
	var b strings.Builder
	for _, r := range rows {
		var line strings.Builder
		for j, c := range r {
			pad := strings.Repeat(" ", width[j]-len([]rune(c)))
			switch {
			case j == len(r)-1:
				line.WriteString(c)
			case j < left:
				line.WriteString(c + pad + "  ")
			default:
				line.WriteString(pad + c + "  ")
			}
		}
		b.WriteString(strings.TrimRight(line.String(), " ") + "\n")
	}
	return b.String()
}
