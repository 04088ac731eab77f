package suite

import (
	"fmt"
	"sync/atomic"

	"github.com/weftrt/weft/bench/internal/contender"
	"github.com/weftrt/weft/bench/internal/result"
	"github.com/weftrt/weft/bench/internal/runner"
)

// admission measures how fast tasks get through a pool's door: one
// goroutine outside the pool submits tiny tasks as fast as it can and
// then waits for the last to finish. "weft" has the default door
// (slots.Unlimited: every task is admitted at once, and only counted);
// "weft-fixed" has a slots.Fixed with one slot per worker, so the
// submitter waits for a task to end before the next gets in.
var admission = Suite{
	Name:      "admission",
	BenchName: "Admission",
	Doc:       "tasks per second through a pool's door",
	workloads: func(s Sizes) []*workload { return []*workload{tasks(s.Tasks)} },
}

func tasks(n int) *workload {
	return &workload{
		name:  "tasks",
		doc:   fmt.Sprintf("%d tiny tasks submitted from one goroutine outside the pool, until the last ends", n),
		iters: n,
		metrics: []result.Metric{
			{Unit: "tasks/s", Label: "tasks/s", Better: result.Higher, Format: result.Rate},
			{Unit: "cpu-ns/task", Label: "CPU/task", Better: result.Lower, Format: result.Nanos},
		},
		supports: func(c contender.Contender) bool { return c.Can(contender.Submit) && c.Role != result.Baseline },
		start: func(c contender.Contender, inst contender.Instance) (func() ([]float64, error), error) {
			submit, err := submitter(c, inst)
			if err != nil {
				return nil, err
			}
			return func() ([]float64, error) { return tasksRun(submit, n) }, nil
		},
	}
}

func tasksRun(submit func(func()) error, n int) ([]float64, error) {
	timer := newJobTimer()
	defer timer.stop()
	var left atomic.Int64
	left.Store(int64(n))
	done := make(chan struct{}, 1)
	task := func() {
		if left.Add(-1) == 0 {
			done <- struct{}{}
		}
	}
	var err error
	span := runner.Time(func() {
		for i := 0; i < n && err == nil; i++ {
			err = submit(task)
		}
		if err == nil {
			_, err = awaitJob(timer, done)
		}
	})
	if err != nil {
		return nil, err
	}
	return []float64{float64(n) / span.Wall.Seconds(), nanos(span.CPU) / float64(n)}, nil
}
