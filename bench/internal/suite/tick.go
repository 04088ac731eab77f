package suite

import (
	"fmt"
	"time"

	"github.com/weftrt/weft/bench/internal/contender"
	"github.com/weftrt/weft/bench/internal/result"
	"github.com/weftrt/weft/bench/internal/runner"
)

// tick submits one tiny job per millisecond, waiting for each, so every
// job finds the pool asleep: the load of a server that is mostly idle.
// The baseline runs the job inline, so its CPU per job is the ticking's
// own cost, which the others pay too.
func tick(jobs int) *workload {
	return &workload{
		name:  "tick",
		doc:   fmt.Sprintf("process CPU per job, %d tiny jobs one per millisecond (sequential: run inline, at the same GOMAXPROCS)", jobs),
		iters: jobs,
		metrics: []result.Metric{
			{Unit: "cpu-ns/job", Label: "CPU/job", Better: result.Lower, Format: result.Nanos},
		},
		baselineAtEveryCount: true,
		supports:             func(c contender.Contender) bool { return c.Can(contender.Submit) },
		start: func(c contender.Contender, inst contender.Instance) (func() ([]float64, error), error) {
			submit, err := submitter(c, inst)
			if err != nil {
				return nil, err
			}
			return func() ([]float64, error) { return tickRun(submit, jobs) }, nil
		},
	}
}

func tickRun(submit func(func()) error, jobs int) ([]float64, error) {
	timer := newJobTimer()
	defer timer.stop()
	done := make(chan struct{}, 1)
	job := func() { done <- struct{}{} }
	var err error
	span := runner.Time(func() {
		for i := 0; i < jobs && err == nil; i++ {
			time.Sleep(time.Millisecond)
			if err = submit(job); err == nil {
				_, err = awaitJob(timer, done)
			}
		}
	})
	if err != nil {
		return nil, err
	}
	return []float64{nanos(span.CPU) / float64(jobs)}, nil
}
