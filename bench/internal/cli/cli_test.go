package cli_test

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/perf/benchfmt"

	"github.com/weftrt/weft/bench/internal/cli"
	"github.com/weftrt/weft/bench/internal/report"
)

// tinyFlags make a whole run of every suite take well under a second.
var tinyFlags = []string{
	"-workers", "1,2", "-reps", "1", "-warmup", "0", "-mintime", "0", "-retries", "0",
	"-fib", "10", "-fib-cutoff", "14", "-cutoff", "8", "-sort", "20000", "-tree", "500", "-tree-grain", "16", "-tree-sum", "8",
	"-loop-uniform", "20000", "-loop-irregular", "300", "-loop-mandelbrot", "32", "-loop-matmul", "16", "-loop-tiny", "100",
	"-idle", "1ms", "-ticks", "2", "-wakes", "2", "-wake-gap", "100us", "-tasks", "200",
}

func run(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = cli.Main(args, &out, &errOut)
	return code, out.String(), errOut.String()
}

// TestSmoke runs the whole command on tiny sizes and checks every output.
func TestSmoke(t *testing.T) {
	dir := t.TempDir()
	code, out, errOut := run(t, append(tinyFlags, "-out", dir)...)
	require.Equal(t, 0, code, errOut)
	for _, w := range []string{"fork-join/fib-full", "fork-join/fib-cutoff", "fork-join/mergesort", "fork-join/tree",
		"tree-sum/complete", "loops/uniform", "loops/irregular", "loops/mandelbrot", "loops/matmul-nested", "loops/tiny-16", "loops/tiny-1000", "efficiency/idle", "efficiency/tick", "efficiency/wake", "admission/tasks"} {
		assert.Contains(t, out, "\n"+w+": ")
	}
	assert.Contains(t, errOut, "fork-join/fib-full (11 cases interleaved): round 1 of 1", "progress goes to stderr")
	assert.Contains(t, errOut, "efficiency/idle/weft ×2: round 1 of 1")
	assert.NotContains(t, out, "round", "and not to stdout")

	for _, f := range []string{"results.txt", "summary.json", "table.txt", "table.md", "speedup.svg", "efficiency.svg", "admission.svg"} {
		info, err := os.Stat(filepath.Join(dir, f))
		require.NoError(t, err)
		assert.Positive(t, info.Size(), f)
	}
	table, err := os.ReadFile(filepath.Join(dir, "table.txt"))
	require.NoError(t, err)
	assert.Equal(t, out, string(table))

	f, err := os.Open(filepath.Join(dir, "results.txt"))
	require.NoError(t, err)
	defer f.Close()
	r := benchfmt.NewReader(f, "results.txt")
	n := 0
	for r.Scan() {
		if _, ok := r.Result().(*benchfmt.Result); ok {
			n++
		}
	}
	require.NoError(t, r.Err())
	assert.Equal(t, 166, n, "one line per case with one repetition each (idle and tick measure their baseline at both worker counts)")
}

func TestJSONOnStdout(t *testing.T) {
	code, out, errOut := run(t, append(tinyFlags, "-json", "-suites", "admission", "-contenders", "weft")...)
	require.Equal(t, 0, code, errOut)
	var s report.Summary
	require.NoError(t, json.Unmarshal([]byte(out), &s))
	assert.Equal(t, []string{"admission"}, s.Settings.Suites)
	assert.Equal(t, "200", s.Settings.Sizes["tasks"])
	require.Len(t, s.Results, 2)
	assert.Equal(t, "weft", s.Results[0].Contender)
}

func TestMarkdownFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tables.md")
	code, out, errOut := run(t, append(tinyFlags, "-suites", "admission", "-contenders", "weft,goroutines", "-markdown", path)...)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, errOut, "weftbench: wrote "+path)
	md, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Contains(t, string(md), "\n### admission/tasks\n")
	assert.Contains(t, string(md), "\n| contender  | workers | tasks/s |")
	assert.Contains(t, string(md), "\n- goroutines: a new goroutine per fork or job")
	assert.Contains(t, out, "\nadmission/tasks: ", "the text table still goes to stdout")

	code, _, errOut = run(t, "-markdown", filepath.Join(t.TempDir(), "no", "such", "dir", "t.md"))
	assert.Equal(t, 2, code, "refused before measuring anything")
	assert.Contains(t, errOut, "no such directory")
}

// TestOutputPathsCheckedFirst: an output path that cannot be written as
// asked (-markdown naming a directory, -out naming a file) is refused
// before anything is measured, not after the whole run.
func TestOutputPathsCheckedFirst(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "results.txt")
	require.NoError(t, os.WriteFile(file, []byte("keep"), 0o644))
	for _, bad := range [][]string{{"-markdown", dir}, {"-out", file}, {"-cpuprofile", dir}, {"-cpuprofile", filepath.Join(dir, "no", "cpu.pgo")}} {
		args := append(append(slices.Clone(tinyFlags), "-suites", "admission", "-contenders", "weft"), bad...)
		code, out, errOut := run(t, args...)
		assert.Equal(t, 2, code, "%v: %s", bad, errOut)
		assert.Contains(t, errOut, bad[0]+" "+bad[1], "%v", bad)
		assert.Empty(t, out, "%v: nothing measured", bad)
	}
	kept, err := os.ReadFile(file)
	require.NoError(t, err)
	assert.Equal(t, "keep", string(kept))
}

// TestCPUProfile: -cpuprofile writes a CPU profile of the run, in the
// gzipped pprof format that go build -pgo takes (a run this short may hold
// no sample yet, so only the profile's header is checked).
func TestCPUProfile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cpu.pgo")
	args := append(slices.Clone(tinyFlags), "-suites", "fork-join", "-contenders", "weft", "-cpuprofile", path)
	code, _, errOut := run(t, args...)
	require.Equal(t, 0, code, errOut)
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	z, err := gzip.NewReader(f)
	require.NoError(t, err)
	raw, err := io.ReadAll(z)
	require.NoError(t, err)
	for _, s := range []string{"samples", "cpu", "nanoseconds"} {
		assert.Contains(t, string(raw), s)
	}
}

// TestWorkersInOrder: worker counts given out of order are measured and
// shown in ascending order, as the default sweep is.
func TestWorkersInOrder(t *testing.T) {
	args := append(slices.Clone(tinyFlags), "-suites", "fork-join", "-contenders", "weft", "-workers", "2,1")
	code, out, errOut := run(t, args...)
	require.Equal(t, 0, code, errOut)
	i := strings.Index(out, "fork-join/fib-full")
	require.GreaterOrEqual(t, i, 0)
	var counts []string
	for _, line := range strings.Split(out[i:], "\n")[2:] {
		f := strings.Fields(line)
		if len(f) < 2 || f[0] != "weft" {
			break
		}
		counts = append(counts, f[1])
	}
	assert.Equal(t, []string{"1", "2"}, counts)
}

func TestList(t *testing.T) {
	code, out, _ := run(t, "-list")
	require.Equal(t, 0, code)
	assert.Contains(t, out, "fork-join")
	assert.Contains(t, out, "semaphore")
}

func TestBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"-workers", "0"}, {"-workers", "a"}, {"-workers", "2,1,2"}, {"-reps", "0"}, {"-noise", "2"}, {"-tree-sum", "0"}, {"-tree-sum", "32"}, {"-loop-uniform", "0"}, {"-nope"}, {"extra"},
		{"-suites", ""}, {"-contenders", " , "}, {"-mintime", "-1s"},
	} {
		code, _, errOut := run(t, args...)
		assert.Equal(t, 2, code, "%v", args)
		assert.NotEmpty(t, errOut)
	}
	code, _, errOut := run(t, "-suites", "nope")
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, `unknown suite "nope"`)
	code, _, errOut = run(t, "-suites", "admission", "-contenders", "errgroup")
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, "no contender can run the chosen suites")
}

// TestBadSizes checks that a size no repetition can run with is refused
// before anything is measured: -ticks 0 used to print CPU/job as "-"
// and then fail -out on a NaN the JSON cannot hold, -tasks 0 to wait out
// the lost-job timeout, and -sort -1 to panic.
func TestBadSizes(t *testing.T) {
	for _, bad := range [][]string{
		{"-fib", "0"}, {"-fib-cutoff", "-1"}, {"-sort", "-1"}, {"-tree", "-5"}, {"-tree-grain", "0"},
		{"-ticks", "0"}, {"-wakes", "0"}, {"-tasks", "0"}, {"-idle", "0s"}, {"-wake-gap", "-1ms"},
	} {
		// A suite the flag does not size, so that code which lets it
		// through still ends at once, and quietly.
		args := append(append(slices.Clone(tinyFlags), "-suites", "efficiency", "-contenders", "sequential"), bad...)
		code, out, errOut := run(t, args...)
		assert.Equal(t, 2, code, "%v", bad)
		assert.Contains(t, errOut, bad[0]+" must", "%v", bad)
		assert.Empty(t, out, "%v: nothing measured", bad)
	}
}

func TestHelp(t *testing.T) {
	code, _, errOut := run(t, "-h")
	assert.Equal(t, 0, code)
	assert.True(t, strings.HasPrefix(errOut, "Usage: weftbench"))
	assert.Contains(t, errOut, "-workers")
}

// TestHelpNamesValues checks that every flag's help names what its value
// is (a duration, a count, a file), not a word that only fills the gap.
func TestHelpNamesValues(t *testing.T) {
	_, _, errOut := run(t, "-h")
	values := []string{"n", "duration", "fraction", "names", "counts", "rounds", "dir", "file"}
	bools := []string{"-json", "-list"}
	flags := 0
	for _, l := range strings.Split(errOut, "\n") {
		if !strings.HasPrefix(l, "  -") {
			continue
		}
		flags++
		f := strings.Fields(l)
		if slices.Contains(bools, f[0]) {
			assert.Len(t, f, 1, l)
			continue
		}
		require.Len(t, f, 2, l)
		assert.Contains(t, values, f[1], "%s: a value the help does not explain", f[0])
	}
	assert.GreaterOrEqual(t, flags, 26, "every flag was checked")
}
