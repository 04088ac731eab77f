package intake_test

import (
	"context"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/weftrt/weft/intake"
	"github.com/weftrt/weft/slots"
)

// unreadableSource delivers a MemQueue's tasks with a Key (at "Key") or
// a Deliveries (at "Deliveries") that always panics; a Goexit there fails
// the worker instead (TestGoexitOutsideHandlerFailsTheWorker). A task
// returned to the queue, however delayed, is polled again as soon as it
// is ready, until it has been delivered upTo times (0: no bound);
// delivered counts the deliveries.
type unreadableSource struct {
	q         *intake.MemQueue
	at        string
	upTo      int64
	delivered atomic.Int64
}

func (s *unreadableSource) Poll(ctx context.Context, n int) ([]intake.Task, error) {
	if s.upTo > 0 && s.delivered.Load() >= s.upTo {
		return nil, nil // its one task is out or back: answered empty
	}
	tasks, err := s.q.Poll(ctx, n)
	for i, t := range tasks {
		s.delivered.Add(1)
		tasks[i] = unreadableTask{t, s}
	}
	return tasks, err
}

func (s *unreadableSource) fail(method string) {
	if s.at == method {
		panic("cannot read " + method)
	}
}

type unreadableTask struct {
	intake.Task
	s *unreadableSource
}

func (u unreadableTask) Deliveries() int { u.s.fail("Deliveries"); return u.Task.Deliveries() }
func (u unreadableTask) Key() string     { u.s.fail("Key"); return "k" }

func (u unreadableTask) HandBack(ctx context.Context) error {
	return u.Task.(intake.HandBacker).HandBack(ctx)
}

// A task whose Key or Deliveries always fails cannot run (the worker
// cannot know its key), and used to be handed back at once: it did not
// count as a delivery, so a source that delivers it again at once had the
// poller take it in, report it and hand it back for ever, with no backoff
// and no end. It now goes back as a failed task does: after Backoff, with
// a Nack that counts, and is terminated on its MaxDeliveries-th delivery.
// One whose Deliveries fails has no count for MaxDeliveries to bound: it
// goes back after Backoff(1) every time and is never terminated (that
// would dead-letter a task for a fault of the source's).
func TestUnreadableTaskIsBackedOffAndTerminated(t *testing.T) {
	const limit = 3
	for _, c := range []struct {
		name     string
		at       string
		backoffs []int // the Backoff calls for its redeliveries
		reason   string
	}{
		{"KeyPanics", "Key", []int{1, 2}, "its Key panicked: cannot read Key, on delivery 3 of at most 3"},
		{"DeliveriesPanics", "Deliveries", []int{1, 1, 1, 1}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			q := intake.NewMemQueue(intake.MemQueueConfig{})
			q.Put([]byte("x"))
			src := &unreadableSource{q: q, at: c.at}
			if c.reason == "" {
				// No end of its own: bounded by the source, so that
				// Shutdown does not find it taken in and claim it first,
				// handing it back without Backoff.
				src.upTo = int64(len(c.backoffs))
			}
			var mu sync.Mutex
			var backoffs []int
			var reports counter
			w := newWorker(t, intake.Config{
				Source: src, Supplier: slots.NewFixed(2), MaxPollers: 1, MaxDeliveries: limit, Handler: mustNotRun(t),
				Backoff: func(n int) time.Duration {
					mu.Lock()
					backoffs = append(backoffs, n)
					mu.Unlock()
					return time.Millisecond
				},
				OnError: func(err error) {
					if strings.Contains(err.Error(), "taking in task") {
						reports.Add(1)
					}
					t.Logf("worker: %v", err)
				},
			})
			if c.reason == "" {
				// No end to wait for: watch it come back, paced, a few
				// times more than MaxDeliveries would allow.
				want := int64(len(c.backoffs))
				eventually(t, 10*time.Second, func() bool { return w.Stats().HandedBack == uint64(want) },
					"the task went back %d times (stats %+v)", want, w.Stats())
				shutdownInTime(t, w)
				require.Empty(t, q.Terminated(), "a task whose Deliveries fails was terminated")
				require.Equal(t, want, src.delivered.Load(), "deliveries")
				require.Equal(t, want, reports.Load(), "reports to OnError of the task, one a delivery")
				mu.Lock()
				require.Equal(t, slices.Repeat([]int{1}, int(want)), backoffs, "Backoff calls")
				mu.Unlock()
				requireFigures(t, w, figures{Received: uint64(want), HandedBack: uint64(want)})
				return
			}
			// Far more deliveries than MaxDeliveries end the wait too: the
			// task is spinning, and the checks below say so.
			eventually(t, 10*time.Second, func() bool { return len(q.Terminated()) == 1 || src.delivered.Load() > 100 },
				"the task terminated (delivered %d times)", src.delivered.Load())
			shutdownInTime(t, w)
			dead := q.Terminated()
			require.Len(t, dead, 1, "delivered %d times, never terminated (stats %+v)", src.delivered.Load(), w.Stats())
			require.Contains(t, dead[0].Reason, c.reason)
			want := int64(len(c.backoffs) + 1)
			require.Equal(t, want, src.delivered.Load(), "deliveries")
			mu.Lock()
			require.Equal(t, c.backoffs, backoffs, "Backoff calls")
			mu.Unlock()
			require.Equal(t, want, reports.Load(), "reports to OnError of the task, one a delivery")
			requireFigures(t, w, figures{Received: uint64(want), HandedBack: uint64(want - 1), Terminated: 1})
			require.Zero(t, q.Len())
		})
	}
}
