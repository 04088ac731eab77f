package suite

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/weftrt/weft/bench/internal/contender"
	"github.com/weftrt/weft/bench/internal/result"
)

var efficiency = Suite{
	Name:      "efficiency",
	BenchName: "Efficiency",
	Doc:       "what a pool costs when there is little or no work: idle CPU, CPU per trickled job, wake-up latency",
	workloads: func(s Sizes) []*workload {
		return []*workload{idle(s.Idle), tick(s.Ticks), wake(s.Wakes, s.WakeGap)}
	},
}

// jobTimeout bounds every wait for a submitted job, so that a contender
// that loses a job fails the run instead of hanging it. Tests shorten it.
var jobTimeout = 30 * time.Second

var errLostJob = errors.New("a submitted job never ran")

// awaitJob waits for a job's signal on ch until ctx ends.
func awaitJob[T any](ctx context.Context, ch <-chan T) (T, error) {
	select {
	case v := <-ch:
		return v, nil
	case <-ctx.Done():
		var zero T
		return zero, fmt.Errorf("%w within %s", errLostJob, jobTimeout)
	}
}

// resident reports whether c is the baseline (which stands for "no pool")
// or keeps goroutines between jobs: the contenders whose idle cost is
// worth a measurement.
func resident(c contender.Contender) bool {
	return c.Role == result.Baseline || c.Can(contender.Resident)
}

// submitter returns inst's Submit, after running one job through it so
// that a pool has started every worker and seen work before it is timed.
func submitter(c contender.Contender, inst contender.Instance) (func(func()) error, error) {
	s, err := capability[contender.Submitter](c, inst)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), jobTimeout)
	defer cancel()
	done := make(chan struct{}, 1)
	if err := s.Submit(func() { done <- struct{}{} }); err != nil {
		return nil, err
	}
	_, err = awaitJob(ctx, done)
	return s.Submit, err
}
