package suite

import (
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
// that loses a job fails the run instead of hanging it. It bounds each
// job's wait, not a repetition: a repetition of many jobs (-ticks 40000,
// or -wakes 100 -wake-gap 500ms) may run far longer than one job may take.
// Tests shorten it.
var jobTimeout = 30 * time.Second

var errLostJob = errors.New("a submitted job never ran")

// jobTimer times the waits for submitted jobs, one at a time. Made
// outside a timed region, it keeps the wait inside one to a timer's reset.
type jobTimer struct{ t *time.Timer }

func newJobTimer() jobTimer {
	t := time.NewTimer(jobTimeout)
	t.Stop()
	return jobTimer{t}
}

func (j jobTimer) stop() { j.t.Stop() }

// awaitJob waits for a job's signal on ch, for at most jobTimeout from
// now. A signal that is there when the time is up still counts.
func awaitJob[T any](j jobTimer, ch <-chan T) (T, error) {
	j.t.Reset(jobTimeout)
	select {
	case v := <-ch:
		return v, nil
	case <-j.t.C:
		select {
		case v := <-ch:
			return v, nil
		default:
		}
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
	timer := newJobTimer()
	defer timer.stop()
	done := make(chan struct{}, 1)
	if err := s.Submit(func() { done <- struct{}{} }); err != nil {
		return nil, err
	}
	_, err = awaitJob(timer, done)
	return s.Submit, err
}
