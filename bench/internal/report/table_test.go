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

// TestHeaderNamesPGO: a run built with a PGO profile says so in the
// table's header and in the benchfmt file's configuration, since a profile
// lets Go inline join.Call and changes every fork-join figure.
func TestHeaderNamesPGO(t *testing.T) {
	run := fixture()
	run.Machine.PGO = "cpu.pgo"
	var tab, txt strings.Builder
	require.NoError(t, report.WriteTable(&tab, run))
	assert.True(t, strings.HasPrefix(tab.String(), "weftbench 2026-01-02 03:04  linux/amd64  Test CPU  2 CPUs  go1.26  PGO cpu.pgo\n"))
	require.NoError(t, report.WriteBenchfmt(&txt, run))
	assert.Contains(t, txt.String(), "weftbench-pgo: cpu.pgo\n")
	assert.NotContains(t, table(t), "PGO", "a run without a profile names none")
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

func TestTableBaselineHasNoVsSeq(t *testing.T) {
	run := fixture()
	// idle measures its baseline at every worker count: sequential ×2 is
	// not a speedup over sequential ×1.
	run.Results = slices.Insert(run.Results, 6,
		res("efficiency", "idle", "sequential", result.Baseline, 2, idleMetrics, 1500))
	var b strings.Builder
	require.NoError(t, report.WriteTable(&b, run))
	tab := b.String()
	assert.Equal(t, []string{"sequential", "1", "1.00µs", "7.5%", "—"}, line(t, tab, "sequential", "1", "1.00µs"))
	assert.Equal(t, []string{"sequential", "2", "1.50µs", "7.5%", "—"}, line(t, tab, "sequential", "2", "1.50µs"))
	assert.Equal(t, []string{"weft", "1", "1.10µs", "7.5%", "0.91x"}, line(t, tab, "weft", "1", "1.10µs"))
}

func TestTableDropsEmptyComparisons(t *testing.T) {
	tab := table(t)
	assert.Equal(t, []string{"contender", "workers", "CPU/s", "±", "vs", "seq"}, line(t, tab, "contender", "workers", "CPU/s"),
		"idle has no alternative: no vs alt, best alt or note")
	assert.Equal(t, []string{"contender", "workers", "tasks/s", "±", "vs", "alt", "best", "alt"}, line(t, tab, "contender", "workers", "tasks/s"),
		"admission has no baseline: no vs seq")
	assert.Equal(t, []string{"goroutines", "1", "1.00M/s", "7.5%", "—"}, line(t, tab, "goroutines", "1", "1.00M/s"),
		"an empty ratio in a column that stays is a dash")
}

func TestTableMarksScatteredRatios(t *testing.T) {
	run := fixture()
	scatter(run, "fib", "goroutines", 1)
	var b strings.Builder
	require.NoError(t, report.WriteTable(&b, run))
	tab := b.String()
	assert.Equal(t, []string{"goroutines", "1", "200ns", "70.0%", "400ns", "noise", "(±70%)", "—"}, line(t, tab, "goroutines", "1"),
		"its own ratios")
	assert.Equal(t, []string{"weft", "1", "110ns", "7.5%", "220ns", "0.91x", "noise", "(±70%)", "goroutines"}, line(t, tab, "weft", "1", "110ns"),
		"a ratio against it, and not the other")
	fib := tableText(tab, "fork-join/fib")
	assert.Contains(t, fib, "\n  noise (±N%): this row or the one it is compared with scatters by more than ±25%")
	assert.NotContains(t, tableText(tab, "admission/tasks"), "noise (±N%)", "only under the tables with the mark")
}

func TestTableLegend(t *testing.T) {
	tab := table(t)
	assert.Contains(t, tableText(tab, "fork-join/fib"),
		"\n  sequential: sequential doc\n  weft:       weft doc\n  goroutines: goroutines doc\n")
	assert.True(t, strings.HasSuffix(tableText(tab, "admission/tasks"), "\n  weft:       weft doc\n  goroutines: goroutines doc\n"),
		"only the contenders in the table")
}

// TestTableAlignsLongNames gives a contender a name longer than any
// header and checks that every column of every table still lines up:
// flush-right columns end, and flush-left ones start, where their
// header does, in every row.
func TestTableAlignsLongNames(t *testing.T) {
	run := fixture()
	long := "a-contender-whose-name-is-longer-than-every-column-header"
	for i := range run.Results {
		if run.Results[i].Contender == "goroutines" {
			run.Results[i].Contender = long
		}
	}
	var b strings.Builder
	require.NoError(t, report.WriteTable(&b, run))
	require.Contains(t, b.String(), long)
	blocks := tableBlocks(b.String())
	require.Len(t, blocks, 3)
	left := []string{"contender", "best alt", "note"}
	for _, block := range blocks {
		head := cellSpans(block[0])
		for _, row := range block[1:] {
			cells := cellSpans(row)
			assert.LessOrEqual(t, len(cells), len(head), "row %q", row)
			for _, h := range head {
				if slices.Contains(left, h.text) {
					assert.True(t, startsAt(cells, h.start) || blankAt(row, h.start), "%q: %s should start at %d", row, h.text, h.start)
				} else {
					assert.True(t, endsAt(cells, h.end), "%q: %s should end at %d", row, h.text, h.end)
				}
			}
		}
	}
}

// span is a cell of a text table: a run of words one space apart, at
// rune offsets [start, end).
type span struct {
	text       string
	start, end int
}

func cellSpans(line string) []span {
	r := []rune(line)
	var spans []span
	for i := 0; i < len(r); {
		if r[i] == ' ' {
			i++
			continue
		}
		j := i
		for j < len(r) && (r[j] != ' ' || (j+1 < len(r) && r[j+1] != ' ')) {
			j++
		}
		spans = append(spans, span{string(r[i:j]), i, j})
		i = j
	}
	return spans
}

func startsAt(spans []span, i int) bool {
	return slices.ContainsFunc(spans, func(s span) bool { return s.start == i })
}

func endsAt(spans []span, i int) bool {
	return slices.ContainsFunc(spans, func(s span) bool { return s.end == i })
}

func blankAt(line string, i int) bool {
	r := []rune(line)
	return i >= len(r) || r[i] == ' '
}

// tableBlocks returns each table's header and rows.
func tableBlocks(text string) [][]string {
	var blocks [][]string
	in := false
	for _, l := range strings.Split(text, "\n") {
		switch {
		case strings.HasPrefix(l, "contender "):
			blocks, in = append(blocks, []string{l}), true
		case in && l != "" && !strings.HasPrefix(l, " "):
			blocks[len(blocks)-1] = append(blocks[len(blocks)-1], l)
		default:
			in = false
		}
	}
	return blocks
}

// tableText returns the text of the table titled title, up to the next
// blank line.
func tableText(text, title string) string {
	_, after, ok := strings.Cut(text, "\n"+title+": ")
	if !ok {
		return ""
	}
	body, _, _ := strings.Cut(after, "\n\n")
	return body + "\n"
}
