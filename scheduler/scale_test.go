package scheduler_test

import (
	"context"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/weftrt/weft/scheduler"
	"github.com/weftrt/weft/sleep"
)

// TestWorkerCountLimit: New refuses more than MaxWorkers, naming the count.
func TestWorkerCountLimit(t *testing.T) {
	_, err := scheduler.New(scheduler.WithWorkers(scheduler.MaxWorkers + 1))
	require.ErrorIs(t, err, scheduler.ErrWorkers)
	assert.Contains(t, err.Error(), "4097")
}

// TestIdleSearchIsLinear: a large pool going idle probes far fewer deques
// than workers times workers: each worker's spinning rounds try a bounded
// sample, and only its last search before sleeping tries every deque. (A
// sweep of every deque in every round costs n*n*rounds in all, which made
// pools of thousands of workers unusable.)
func TestIdleSearchIsLinear(t *testing.T) {
	n := 512
	if testing.Short() {
		n = 128
	}
	p := pool(t, scheduler.WithWorkers(n))
	defer p.Close()
	require.NoError(t, p.Run(context.Background(), func(*scheduler.Worker) error {
		return nil
	}))
	for scheduler.Asleep(p) < n { // every worker reaches sleep; no timing involved
		runtime.Gosched()
	}
	quadratic := uint64(n) * uint64(n) * sleep.DefaultSearchRounds
	got := scheduler.Probes(p)
	assert.Less(t, got, quadratic/4, "probes to put %d workers to sleep", n)
	t.Logf("%d workers: %d probes to fall asleep (a full sweep every round: at least %d)", n, got, quadratic)
}
