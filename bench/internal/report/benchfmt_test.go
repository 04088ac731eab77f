package report_test

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/perf/benchfmt"

	"github.com/weftrt/weft/bench/internal/report"
)

// TestBenchfmtRoundTrip writes a run and reads it back with benchfmt's
// own reader: every sample comes back under its name, with its values,
// units and the file configuration.
func TestBenchfmtRoundTrip(t *testing.T) {
	run := fixture()
	var buf bytes.Buffer
	require.NoError(t, report.WriteBenchfmt(&buf, run))

	r := benchfmt.NewReader(&buf, "results.txt")
	var got []*benchfmt.Result
	for r.Scan() {
		switch rec := r.Result().(type) {
		case *benchfmt.Result:
			got = append(got, rec.Clone())
		case *benchfmt.SyntaxError:
			t.Fatalf("syntax error: %v", rec)
		}
	}
	require.NoError(t, r.Err())

	var want int
	for _, res := range run.Results {
		want += len(res.Samples)
	}
	require.Len(t, got, want)

	first := got[0]
	assert.Equal(t, "ForkJoin/workload=fib/contender=sequential-1", first.Name.String())
	assert.Equal(t, "linux", first.GetConfig("goos"))
	assert.Equal(t, "Test CPU", first.GetConfig("cpu"))
	assert.Equal(t, "1 of 9", first.GetConfig("weftbench-noisy-results"))
	v, ok := first.Value("sec/op") // benchfmt tidies ns/op into sec/op
	require.True(t, ok)
	assert.InDelta(t, run.Results[0].Samples[0][0]*1e-9, v, 1e-15)
	_, ok = first.Value("cpu-sec/op")
	assert.True(t, ok, "cpu-ns/op comes back tidied too")

	base, procs := got[len(got)-1].Name.Parts()
	assert.Equal(t, "Admission", string(base))
	assert.Equal(t, "/workload=tasks", string(procs[0]))
	assert.Equal(t, "-1", string(procs[len(procs)-1]), "the worker count is the GOMAXPROCS suffix")
}

func TestBenchfmtUnitMetadata(t *testing.T) {
	var buf bytes.Buffer
	require.NoError(t, report.WriteBenchfmt(&buf, fixture()))
	r := benchfmt.NewReader(&buf, "results.txt")
	for r.Scan() {
	}
	require.NoError(t, r.Err())
	assert.Equal(t, 1, r.Units().GetBetter("tasks/s"), "tasks/s is better higher")
	assert.Equal(t, -1, r.Units().GetBetter("ns/op"))
}
