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
	where, how := preamble(run)
	b.WriteString(strings.Join(where, "  ") + "\n")
	b.WriteString(strings.Join(how, "\n") + "\n")
	for _, g := range groups(run) {
		newTable(run, g).writeText(&b)
	}
	b.WriteString("\n" + epilogue(run) + "\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// preamble returns where and when the run was measured, in parts, and how
// to read its tables, in lines.
func preamble(run *result.Run) (where, how []string) {
	m := run.Machine
	where = []string{"weftbench " + run.Start.Format("2006-01-02 15:04"), m.GOOS + "/" + m.GOARCH, m.CPU,
		fmt.Sprintf("%d CPUs", m.CPUs), m.GoVersion}
	if m.PGO != "" {
		where = append(where, "PGO "+m.PGO)
	}
	how = []string{
		fmt.Sprintf("median of %d+ runs after %d warm-up; ± is half the interquartile range; ratios: times better than",
			run.Settings.Reps, run.Settings.Warmup),
		"sequential (vs seq) and than the best alternative at the same worker count (vs alt, named under best alt);",
		"above 1 is better; — where there is nothing to compare with.",
	}
	if n := run.NoisyCount(); n > 0 {
		how = append(how, fmt.Sprintf("A ? after a ratio: %d of %d results ran while more than %.0f%% of the CPUs were busy outside this",
			n, len(run.Results), 100*run.Settings.NoiseThreshold),
			"process (note column), and this ratio compares one of them: a hint, not a result. Rerun on a quiet machine.")
	}
	if hasUnit(run, forkUnit) {
		how = append(how, "For the fork-join computations vs seq is the speedup, and CPU/fork the CPU time per fork the",
			"contender made (sequential: per fork the weft forms make, so the difference is what a fork costs).")
	}
	return where, how
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

// epilogue says how many cases ran, and how many of them on a busy
// machine.
func epilogue(run *result.Run) string {
	n := run.NoisyCount()
	s := fmt.Sprintf("%d cases in %s.", len(run.Results), run.Elapsed.Round(1e9))
	if n == 0 {
		return s + fmt.Sprintf(" The machine was quiet (under %.0f%% of its CPUs busy elsewhere) throughout.",
			100*run.Settings.NoiseThreshold)
	}
	return s + fmt.Sprintf(" %d of them ran while more than %.0f%% of the CPUs were busy outside this process,\n",
		n, 100*run.Settings.NoiseThreshold) +
		fmt.Sprintf("even when measured again (-retries %d): ", run.Settings.Retries) +
		"their ratios, and those compared with them, carry a \"?\".\nRerun on a quiet machine to trust them."
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
