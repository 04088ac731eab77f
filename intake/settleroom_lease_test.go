package intake_test

import (
	"context"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/weftrt/weft/intake"
	"github.com/weftrt/weft/slots"
)

// slowAckQueue is a MemQueue whose Acks each take ackTime: a server
// that answers every Ack well within the lease, one at a time. It is used
// only inside a synctest bubble, where Ack's sleep is on the fake clock.
type slowAckQueue struct {
	*intake.MemQueue
	ackTime time.Duration
}

type slowAckTask struct {
	intake.Task
	q *slowAckQueue
}

func (s *slowAckTask) HandBack(ctx context.Context) error {
	return s.Task.(intake.HandBacker).HandBack(ctx)
}

func (s *slowAckTask) Ack(ctx context.Context) error {
	time.Sleep(s.q.ackTime)
	return s.Task.Ack(ctx)
}

func (q *slowAckQueue) Poll(ctx context.Context, n int) ([]intake.Task, error) {
	ts, err := q.MemQueue.Poll(ctx, n)
	for i, t := range ts {
		ts[i] = &slowAckTask{Task: t, q: q}
	}
	return ts, err
}

func (q *slowAckQueue) Lease() time.Duration { return q.MemQueue.Lease() }

// Tasks whose handlers have returned and that wait for room among the
// settlements in flight (MaxSettling) still hold their deliveries: they
// keep their slots, and their leases must be kept by heartbeats like
// those of queued and running tasks. Here eight tasks end at once with
// MaxSettling 1, and each Ack takes a third of the lease: the last waits
// more than two leases for its turn. Without heartbeats for them, their
// leases run out while they wait, the queue delivers them again, they
// run twice, and their first Acks fail.
func TestSettleRoomWaitKeepsLease(t *testing.T) {
	// Inside synctest the clock is the bubble's: every time.Sleep here
	// moves it at once, and nothing depends on the machine's speed.
	synctest.Test(t, func(t *testing.T) {
		const n = 8
		const lease = 300 * time.Millisecond
		q := &slowAckQueue{
			MemQueue: intake.NewMemQueue(intake.MemQueueConfig{Lease: lease, PollWait: 50 * time.Millisecond}),
			ackTime:  lease / 3,
		}
		for i := range n {
			q.Put([]byte(strconv.Itoa(i)))
		}
		var mu sync.Mutex
		runs := map[string]int{}
		var started atomic.Int64
		all := make(chan struct{})
		w := newWorker(t, intake.Config{
			Source:      q,
			Supplier:    slots.NewFixed(n),
			MaxPollers:  1,
			MaxSettling: 1,
			OnError:     func(error) {},
			Handler: func(_ context.Context, task intake.Task) error {
				mu.Lock()
				runs[task.ID()]++
				mu.Unlock()
				if c := started.Add(1); c == n {
					close(all)
				} else if c < n {
					<-all // end together
				}
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
		s := w.Stats()
		mu.Lock()
		defer mu.Unlock()
		for id, r := range runs {
			require.Equal(t, 1, r, "task %s ran %d times: its lease ran out while it waited for settle room", id, r)
		}
		require.Len(t, runs, n)
		require.EqualValues(t, n, s.Acked)
		require.Zero(t, s.SettleErrors)
		require.Zero(t, s.Redelivered)
	})
}
