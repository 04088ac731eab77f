package report_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/weftrt/weft/bench/internal/report"
)

func summaryJSON(t *testing.T) []byte {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, report.WriteJSON(&buf, fixture()))
	return buf.Bytes()
}

// TestJSONDecodesStrictly decodes the summary into its own struct with
// unknown fields refused, so that the struct is the schema.
func TestJSONDecodesStrictly(t *testing.T) {
	dec := json.NewDecoder(bytes.NewReader(summaryJSON(t)))
	dec.DisallowUnknownFields()
	var s report.Summary
	require.NoError(t, dec.Decode(&s))

	assert.Equal(t, report.Schema, s.Schema)
	assert.Equal(t, 2, s.Machine.CPUs)
	assert.Equal(t, []int{1, 2}, s.Settings.Workers)
	assert.Equal(t, 1, s.NoisyResults)
	require.Len(t, s.Results, 9)

	weft := s.Results[1]
	assert.Equal(t, "weft", weft.Contender)
	require.NotNil(t, weft.VsBaseline)
	assert.InDelta(t, 100.0/110, *weft.VsBaseline, 1e-9)
	assert.Equal(t, "goroutines", weft.BestAlt)
	assert.Equal(t, "weft doc", weft.ContenderDoc)
	assert.Equal(t, "ns/op", weft.Metrics[0].Unit)
	assert.InDelta(t, 110, weft.Metrics[0].Median, 1e-9)
	assert.InDelta(t, 99, weft.Metrics[0].Min, 1e-9)

	assert.Nil(t, s.Results[0].VsBaseline, "the baseline has nothing to be compared with")
	assert.True(t, s.Results[4].Noisy)
	assert.Equal(t, 3, s.Results[4].Attempts)
	assert.InDelta(t, 0.8, s.Results[4].OutsideCPUs, 1e-9)
}

// TestJSONRequiredFields checks that every field a script may rely on is
// present in every object, null ratios included.
func TestJSONRequiredFields(t *testing.T) {
	var doc map[string]any
	require.NoError(t, json.Unmarshal(summaryJSON(t), &doc))
	requireKeys(t, doc, "schema", "start", "elapsed_s", "machine", "settings", "noisy_results", "results")
	requireKeys(t, doc["machine"].(map[string]any), "goos", "goarch", "cpu", "cpus", "go")
	requireKeys(t, doc["settings"].(map[string]any), "suites", "contenders", "workers", "reps", "warmup",
		"min_time_ns", "noise_threshold", "retries", "sizes")
	for _, r := range doc["results"].([]any) {
		e := r.(map[string]any)
		requireKeys(t, e, "suite", "workload", "doc", "contender", "contender_doc", "role", "workers", "reps", "attempts", "iters",
			"metrics", "vs_baseline", "vs_best_alt", "best_alt", "trusted", "outside_cpus", "noise_known", "noisy")
		for _, m := range e["metrics"].([]any) {
			requireKeys(t, m.(map[string]any), "unit", "label", "better", "median", "min", "max", "q1", "q3")
		}
	}
}

func requireKeys(t *testing.T, obj map[string]any, keys ...string) {
	t.Helper()
	for _, k := range keys {
		_, ok := obj[k]
		require.True(t, ok, "missing %q in %v", k, obj)
	}
}
