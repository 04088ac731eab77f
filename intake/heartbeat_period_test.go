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

// Config.Heartbeat is "how often" a held task's lease is extended: a
// Heartbeat shorter than the lease must keep a long task leased. The
// heartbeat goroutine used to wake every half period and beat only the
// tasks whose last beat was a whole period old, so a task delivered
// between two wake-ups waited up to one and a half periods for a beat:
// with a lease of 300ms and a Heartbeat of 250ms the lease ran out, the
// task was delivered again while it ran, and its Ack failed.
func TestHeartbeatBelowLeaseKeepsLease(t *testing.T) {
	// Inside synctest the clock is the bubble's: every time.Sleep here
	// moves it at once, and nothing depends on the machine's speed.
	synctest.Test(t, func(t *testing.T) {
		q := intake.NewMemQueue(intake.MemQueueConfig{Lease: 300 * time.Millisecond, PollWait: 50 * time.Millisecond})
		var runs atomic.Int64
		w := newWorker(t, intake.Config{
			Source:    q,
			Supplier:  slots.NewFixed(2),
			Heartbeat: 250 * time.Millisecond,
			OnError:   func(error) {},
			Handler: func(context.Context, intake.Task) error {
				if runs.Add(1) == 1 {
					time.Sleep(time.Second) // a long task: three leases
				}
				return nil
			},
		})
		time.Sleep(10 * time.Millisecond) // delivered out of phase with the heartbeat's ticks
		q.Put([]byte("long"))
		for i := 0; q.Len() > 0 || w.Stats().Settling > 0; i++ {
			if i == 1000 {
				t.Fatalf("not settled: %+v", w.Stats())
			}
			time.Sleep(10 * time.Millisecond)
		}
		synctest.Wait()
		s := w.Stats()
		require.EqualValues(t, 1, runs.Load(), "the task was delivered again while it ran")
		require.Zero(t, s.Redelivered)
		require.Zero(t, s.SettleErrors)
		require.EqualValues(t, 1, s.Acked)
	})
}
