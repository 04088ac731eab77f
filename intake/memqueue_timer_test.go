package intake_test

import (
	"context"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/weftrt/weft/intake"
	"github.com/weftrt/weft/slots"
)

// A MemQueue Poll that waits sets its timer to the earliest lease or
// delay end it knows of. A Nack with a delay shorter than the wait left
// must wake it, or the retried task sits ready-to-be while a poller with
// free slots waits out its whole PollWait (1s by default) instead of the
// Backoff (here at most 100ms).
func TestMemQueueNackDelayWakesWaitingPoll(t *testing.T) {
	// Inside synctest the clock is the bubble's: every time.Sleep here
	// moves it at once, and nothing depends on the machine's speed.
	synctest.Test(t, func(t *testing.T) {
		q := intake.NewMemQueue(intake.MemQueueConfig{PollWait: time.Second})
		var runs atomic.Int64
		var failedAt, retriedAt atomic.Int64
		w := newWorker(t, intake.Config{
			Source:     q,
			Supplier:   slots.NewFixed(2),
			MaxPollers: 1,
			Backoff:    intake.Exponential(100*time.Millisecond, 100*time.Millisecond),
			OnError:    func(error) {},
			Handler: func(context.Context, intake.Task) error {
				if runs.Add(1) == 1 {
					failedAt.Store(time.Now().UnixNano())
					return context.DeadlineExceeded // fails once
				}
				retriedAt.Store(time.Now().UnixNano())
				return nil
			},
		})
		q.Put([]byte("x"))
		for i := 0; w.Stats().Acked == 0; i++ {
			if i == 1000 {
				t.Fatalf("not acked: %+v", w.Stats())
			}
			time.Sleep(10 * time.Millisecond)
		}
		gap := time.Duration(retriedAt.Load() - failedAt.Load())
		require.LessOrEqual(t, gap, 150*time.Millisecond, "a retry with a backoff of at most 100ms waited %v for a poll to notice it", gap)
	})
}
