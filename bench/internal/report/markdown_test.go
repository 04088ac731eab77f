package report_test

import (
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/weftrt/weft/bench/internal/report"
	"github.com/weftrt/weft/bench/internal/result"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

func markdown(t *testing.T, run *result.Run) string {
	t.Helper()
	var b strings.Builder
	require.NoError(t, report.WriteMarkdown(&b, run))
	return b.String()
}

// TestMarkdownGolden writes the fixture, with one scattered result, and
// compares it with testdata/fixture.md (go test -run Golden -update
// rewrites it).
func TestMarkdownGolden(t *testing.T) {
	run := fixture()
	scatter(run, "fib", "goroutines", 1)
	got := markdown(t, run)
	golden := filepath.Join("testdata", "fixture.md")
	if *update {
		require.NoError(t, os.WriteFile(golden, []byte(got), 0o644))
	}
	want, err := os.ReadFile(golden)
	require.NoError(t, err)
	assert.Equal(t, string(want), got)
	assertTables(t, got, 3)
}

func TestMarkdownNotesAndLegend(t *testing.T) {
	run := fixture()
	scatter(run, "fib", "goroutines", 1)
	md := markdown(t, run)
	fib := mdSection(md, "fork-join/fib")
	assert.Contains(t, fib, "| goroutines |       1 |  200ns | 70.0% | 400ns | noise (±70%) |            — |            |")
	assert.Contains(t, fib, "\n\nnoise (±N%): this row or the one it is compared with scatters by more than ±25%")
	assert.True(t, strings.HasSuffix(fib, "\n\n- sequential: sequential doc\n- weft: weft doc\n- goroutines: goroutines doc\n"), fib)
	tasks := mdSection(md, "admission/tasks")
	assert.NotContains(t, tasks, "noise (±N%)")
	assert.Contains(t, tasks, "\n\n- weft: weft doc\n- goroutines: goroutines doc\n")
}

func TestMarkdownEscapes(t *testing.T) {
	run := fixture()
	for i := range run.Results {
		if run.Results[i].Contender == "goroutines" {
			run.Results[i].Contender = "go|routines*"
			run.Results[i].ContenderDoc = "a `goroutine` per _fork_ | <job>"
		}
	}
	md := markdown(t, run)
	assert.Contains(t, md, `| go\|routines\* |`)
	assert.Contains(t, md, "\n- go\\|routines\\*: a \\`goroutine\\` per \\_fork\\_ \\| \\<job\\>\n")
	assertTables(t, md, 3)
}

// mdSection returns the section headed "### title", up to the next
// heading or the end.
func mdSection(md, title string) string {
	_, after, ok := strings.Cut(md, "\n### "+title+"\n")
	if !ok {
		return ""
	}
	body, _, _ := strings.Cut(after, "\n### ")
	body, _, _ = strings.Cut(body, "\n\n9 cases") // the footer
	return strings.TrimRight(body, "\n") + "\n"
}

var (
	unescapedPipe = regexp.MustCompile(`(^|[^\\])\|`)
	separatorRow  = regexp.MustCompile(`^\|( :?-{2,}:? \|)+$`)
)

// assertTables checks that md has n GitHub-flavoured Markdown tables and
// that each is well formed: a blank line before and after, a header row,
// a separator row of at least three dashes per cell, and as many cells in
// every row as in the header (an escaped \| is not a separator).
func assertTables(t *testing.T, md string, n int) {
	t.Helper()
	lines := strings.Split(md, "\n")
	tables := 0
	for i := 0; i < len(lines); i++ {
		if !strings.HasPrefix(lines[i], "|") {
			continue
		}
		tables++
		assert.Empty(t, lines[i-1], "a blank line before the table")
		cells := len(unescapedPipe.FindAllString(lines[i], -1)) - 1
		require.Regexp(t, separatorRow, lines[i+1])
		assert.Equal(t, cells, strings.Count(lines[i+1], "|")-1, "separator cells")
		for _, c := range strings.Split(strings.Trim(lines[i+1], "| "), " | ") {
			assert.GreaterOrEqual(t, strings.Count(c, "-"), 3, "separator cell %q", c)
		}
		for i += 2; i < len(lines) && strings.HasPrefix(lines[i], "|"); i++ {
			assert.Equal(t, cells, len(unescapedPipe.FindAllString(lines[i], -1))-1, "cells in %q", lines[i])
			assert.True(t, strings.HasSuffix(lines[i], " |"), "row %q ends with a separator", lines[i])
		}
		assert.Empty(t, lines[i], "a blank line after the table")
	}
	assert.Equal(t, n, tables)
}
