package result_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/weftrt/weft/bench/internal/result"
)

var (
	lower  = []result.Metric{{Unit: "ns/op", Better: result.Lower, Format: result.Nanos}}
	higher = []result.Metric{{Unit: "tasks/s", Better: result.Higher, Format: result.Rate}}
)

func res(workload, contender string, role result.Role, workers int, metrics []result.Metric, v float64) result.Result {
	return result.Result{Suite: "s", Workload: workload, Contender: contender, Role: role, Workers: workers,
		Metrics: metrics, Samples: [][]float64{{v}}}
}

func TestCompare(t *testing.T) {
	run := &result.Run{Results: []result.Result{
		res("w", "seq", result.Baseline, 1, lower, 100),
		res("w", "weft", result.Weft, 2, lower, 40),
		res("w", "slow", result.Alternative, 2, lower, 200),
		res("w", "fast", result.Alternative, 2, lower, 50),
		res("w", "other-workers", result.Alternative, 1, lower, 10),
		res("v", "fast", result.Alternative, 2, lower, 1),
	}}
	c := run.Compare(1)
	assert.InDelta(t, 2.5, c.VsBaseline, 1e-12)
	assert.Equal(t, "fast", c.BestAlt, "best among the same workload and worker count")
	assert.InDelta(t, 50.0/40, c.VsBestAlt, 1e-12)
	assert.True(t, c.Trusted)

	c = run.Compare(3)
	assert.Equal(t, "slow", c.BestAlt, "an alternative is compared with the best of the others")
	assert.InDelta(t, 4.0, c.VsBestAlt, 1e-12)

	c = run.Compare(0)
	assert.Zero(t, c.VsBaseline, "nothing to compare the baseline with")
	x, ok := run.Speedup(0)
	assert.True(t, ok)
	assert.Equal(t, 1.0, x)

	run.Results[3].Noisy = true
	assert.False(t, run.Compare(1).Trusted, "compared with a noisy result")
	assert.False(t, run.Compare(2).Trusted, "slow is compared with noisy fast too")
	assert.Equal(t, 1, run.NoisyCount())
}

func TestCompareHigherIsBetter(t *testing.T) {
	run := &result.Run{Results: []result.Result{
		res("w", "weft", result.Weft, 1, higher, 4e6),
		res("w", "go", result.Alternative, 1, higher, 1e6),
	}}
	c := run.Compare(0)
	assert.InDelta(t, 4.0, c.VsBestAlt, 1e-12)
	assert.Zero(t, c.VsBaseline)
	_, ok := run.Speedup(0)
	assert.False(t, ok)
}

func TestPrint(t *testing.T) {
	ns := result.Metric{Format: result.Nanos}
	rate := result.Metric{Format: result.Rate}
	count := result.Metric{Format: result.Count}
	for _, tt := range []struct {
		m    result.Metric
		v    float64
		want string
	}{
		{ns, 0, "0ns"}, {ns, 12.345, "12.3ns"}, {ns, 1234, "1.23µs"}, {ns, 14_200_000, "14.2ms"}, {ns, 2.5e9, "2.50s"},
		{rate, 3_050_000, "3.05M/s"}, {rate, 999, "999/s"},
		{count, 0, "0"}, {count, 7, "7"}, {count, 2.5, "2.50"}, {count, 364_000, "364k"},
		{ns, math.NaN(), "-"},
	} {
		assert.Equal(t, tt.want, tt.m.Print(tt.v))
	}
}

func TestCompareBaselineWithItsOwnKind(t *testing.T) {
	run := &result.Run{Results: []result.Result{
		res("idle", "seq", result.Baseline, 1, lower, 100),
		res("idle", "seq", result.Baseline, 2, lower, 150),
		res("idle", "weft", result.Weft, 2, lower, 120),
	}}
	assert.Zero(t, run.Compare(1).VsBaseline, "a baseline at another worker count is no baseline for a baseline")
	assert.InDelta(t, 150.0/120, run.Compare(2).VsBaseline, 1e-12, "the baseline at the same worker count")
}

func TestCompareSpread(t *testing.T) {
	tight := res("w", "seq", result.Baseline, 1, lower, 100)
	tight.Samples = [][]float64{{90}, {100}, {110}} // ±5%
	wide := res("w", "weft", result.Weft, 1, lower, 100)
	wide.Samples = [][]float64{{20}, {100}, {300}} // ±70%
	alt := res("w", "go", result.Alternative, 1, lower, 100)
	alt.Samples = [][]float64{{80}, {100}, {120}} // ±10%
	run := &result.Run{Results: []result.Result{tight, wide, alt}}

	c := run.Compare(1)
	assert.InDelta(t, 0.7, c.BaselineSpread, 1e-12, "the wider side")
	assert.InDelta(t, 0.7, c.AltSpread, 1e-12)
	assert.True(t, result.TooWide(c.BaselineSpread))
	c = run.Compare(2)
	assert.InDelta(t, 0.1, c.BaselineSpread, 1e-12)
	assert.False(t, result.TooWide(c.BaselineSpread))
	assert.Zero(t, c.AltSpread, "go has no other alternative to be compared with")
}
