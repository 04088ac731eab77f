package intake_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/weftrt/weft/intake"
	"github.com/weftrt/weft/slots"
)

// overAskSource is a MemQueue that answers its first poll with one task
// more than asked. The extra one's hand-back takes slow (a slow round
// trip).
type overAskSource struct {
	*intake.MemQueue
	slow time.Duration
	once atomic.Bool
}

func (s *overAskSource) Poll(ctx context.Context, n int) ([]intake.Task, error) {
	if !s.once.CompareAndSwap(false, true) {
		return s.MemQueue.Poll(ctx, n)
	}
	ts, err := s.MemQueue.Poll(ctx, n+1)
	if len(ts) > n {
		ts[n] = &slowHandBack{Task: ts[n], slow: s.slow}
	}
	return ts, err
}

type slowHandBack struct {
	intake.Task
	slow time.Duration
}

func (t *slowHandBack) HandBack(ctx context.Context) error {
	time.Sleep(t.slow) // the synctest bubble's clock: a round trip of t.slow, taken at once
	return t.Task.(intake.HandBacker).HandBack(ctx)
}

// The tasks a poll asked for are booked (their leases kept) before the
// poller hands back the tasks beyond the ask, which may take a round trip
// each: otherwise the asked-for task's lease runs out while the poller
// waits on the extra's hand-back, and the task runs twice.
func TestExtraHandBackKeepsLease(t *testing.T) {
	// Inside synctest the clock is the bubble's: time.Sleep moves it at
	// once, and nothing depends on the machine's speed.
	synctest.Test(t, func(t *testing.T) {
		const lease = 300 * time.Millisecond
		q := intake.NewMemQueue(intake.MemQueueConfig{Lease: lease, PollWait: 50 * time.Millisecond})
		q.Put([]byte("a"))
		q.Put([]byte("b"))
		var mu sync.Mutex
		runs := map[string]int{}
		w := newWorker(t, intake.Config{
			Source:     &overAskSource{MemQueue: q, slow: 3 * lease},
			Supplier:   slots.NewFixed(1),
			MaxBatch:   1,
			MaxPollers: 1,
			OnError:    func(error) {},
			Handler: func(_ context.Context, task intake.Task) error {
				mu.Lock()
				runs[task.ID()]++
				mu.Unlock()
				return nil
			},
		})
		for i := 0; q.Len() > 0 || w.Stats().Settling > 0; i++ {
			if i == 1000 {
				t.Fatalf("not settled: %+v", w.Stats())
			}
			time.Sleep(10 * time.Millisecond)
		}
		synctest.Wait()
		mu.Lock()
		defer mu.Unlock()
		for id, r := range runs {
			require.Equal(t, 1, r, "task %s ran %d times: its lease ran out while its poller handed back an extra task", id, r)
		}
		require.Len(t, runs, 2)
		require.EqualValues(t, 2, w.Stats().Acked)
	})
}
