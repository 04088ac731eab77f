package report_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/weftrt/weft/bench/internal/report"
	"github.com/weftrt/weft/bench/internal/result"
)

func table(t *testing.T) string {
	t.Helper()
	var b strings.Builder
	require.NoError(t, report.WriteTable(&b, fixture()))
	return b.String()
}

// line returns the table line that starts with the given cells.
func line(t *testing.T, table string, cells ...string) []string {
	t.Helper()
	for _, l := range strings.Split(table, "\n") {
		f := strings.Fields(l)
		if len(f) >= len(cells) && strings.Join(f[:len(cells)], " ") == strings.Join(cells, " ") {
			return f
		}
	}
	t.Fatalf("no line starting %q in\n%s", cells, table)
	return nil
}

func TestTableRatios(t *testing.T) {
	tab := table(t)
	// weft ×1: 110 vs sequential's 100; vs goroutines ×1 at 200.
	assert.Equal(t, []string{"weft", "1", "110ns", "7.5%", "220ns", "0.91x", "1.82x", "goroutines"}, line(t, tab, "weft", "1"))
	// Higher is better for tasks/s: 4M/s against 1M/s is 4x better.
	assert.Contains(t, line(t, tab, "weft", "1", "4.00M/s"), "4.00x")
}

func TestTableHidesNoisyRatios(t *testing.T) {
	tab := table(t)
	noisy := strings.Join(line(t, tab, "goroutines", "2"), " ")
	assert.Contains(t, noisy, "? ", "its own ratio is hidden")
	assert.Contains(t, noisy, "noisy: 0.80 CPUs busy elsewhere")
	compared := strings.Join(line(t, tab, "weft", "2"), " ")
	assert.Contains(t, compared, "? goroutines", "weft ×2 was compared with the noisy goroutines ×2")
	assert.Contains(t, compared, "compared with a noisy result")
	assert.Contains(t, tab, "1 of them ran while more than 10% of the CPUs were busy")
}

func TestTableHeader(t *testing.T) {
	tab := table(t)
	assert.True(t, strings.HasPrefix(tab, "weftbench 2026-01-02 03:04  linux/amd64  Test CPU  2 CPUs  go1.26\n"))
	for _, w := range []string{"fork-join/fib: fib doc", "efficiency/idle: idle doc", "admission/tasks: tasks doc"} {
		assert.Contains(t, tab, "\n"+w+"\n")
	}
}

func TestTableExplainsCPUPerFork(t *testing.T) {
	assert.NotContains(t, table(t), "CPU/fork", "no fork-join metric, no explanation")
	run := fixture()
	for i := range run.Results {
		if run.Results[i].Suite == "fork-join" {
			run.Results[i].Metrics = append(slices.Clone(run.Results[i].Metrics),
				result.Metric{Unit: "cpu-ns/fork", Label: "CPU/fork", Better: result.Lower, Format: result.Nanos})
			for j, s := range run.Results[i].Samples {
				run.Results[i].Samples[j] = append(slices.Clone(s), s[1]/1000)
			}
		}
	}
	var b strings.Builder
	require.NoError(t, report.WriteTable(&b, run))
	tab := b.String()
	assert.Contains(t, tab, "vs seq is the speedup, and CPU/fork the CPU time per fork")
	// weft ×1: CPU 220ns (twice its wall time), over a thousand forks.
	assert.Equal(t, []string{"weft", "1", "110ns", "7.5%", "220ns", "0.22ns", "0.91x"}, line(t, tab, "weft", "1")[:7])
}
