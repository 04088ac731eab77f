package suite

import (
	"fmt"
	"slices"
	"time"

	"github.com/weftrt/weft/bench/internal/contender"
	"github.com/weftrt/weft/bench/internal/result"
	"github.com/weftrt/weft/bench/internal/runner"
	"github.com/weftrt/weft/bench/internal/stats"
)

// wake measures the latency from submitting a job to an asleep pool to the
// job's first instruction. The pause before each submission lets every
// worker finish searching and block.
func wake(wakes int, gap time.Duration) *workload {
	return &workload{
		name:  "wake",
		doc:   fmt.Sprintf("latency from submit to task start on an asleep pool, %d wakes %s apart", wakes, gap),
		iters: wakes,
		metrics: []result.Metric{
			{Unit: "p50-ns", Label: "p50", Better: result.Lower, Format: result.Nanos},
			{Unit: "p99-ns", Label: "p99", Better: result.Lower, Format: result.Nanos},
			{Unit: "cpu-ns/wake", Label: "CPU/wake", Better: result.Lower, Format: result.Nanos},
		},
		supports: func(c contender.Contender) bool { return c.Can(contender.Submit) && c.Role != result.Baseline },
		start: func(c contender.Contender, inst contender.Instance) (func() ([]float64, error), error) {
			submit, err := submitter(c, inst)
			if err != nil {
				return nil, err
			}
			return func() ([]float64, error) { return wakeRun(submit, wakes, gap) }, nil
		},
	}
}

func wakeRun(submit func(func()) error, wakes int, gap time.Duration) ([]float64, error) {
	timer := newJobTimer()
	defer timer.stop()
	started := make(chan time.Time, 1)
	job := func() { started <- time.Now() }
	lat := make([]float64, wakes)
	var err error
	span := runner.Time(func() {
		for i := 0; i < wakes && err == nil; i++ {
			time.Sleep(gap)
			t0 := time.Now()
			if err = submit(job); err != nil {
				break
			}
			var t time.Time
			t, err = awaitJob(timer, started)
			lat[i] = nanos(t.Sub(t0))
		}
	})
	if err != nil {
		return nil, err
	}
	slices.Sort(lat)
	return []float64{stats.Quantile(lat, 0.5), stats.Quantile(lat, 0.99), nanos(span.CPU) / float64(wakes)}, nil
}
