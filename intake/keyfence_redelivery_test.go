package intake_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/weftrt/weft/intake"
	"github.com/weftrt/weft/slots"
)

// queuedSource gives its tasks to the polls waiting on it, oldest first,
// as a JetStream server serves pull requests, and keeps order across
// pollers (intake.OrderKeeper): it answers no poll while a task of its
// last answer is not yet Taken. A task returned to it takes a round trip
// that ends only once a poll waits for it: another poller's next poll
// reaches the source before the return does. Its first answer fails.
type queuedSource struct {
	mu      sync.Mutex
	arrived *sync.Cond // signalled as a poll begins to wait
	ready   []intake.Task
	waiting []chan intake.Task // oldest first
	untaken int
	failed  bool
}

func newQueuedSource() *queuedSource {
	s := &queuedSource{}
	s.arrived = sync.NewCond(&s.mu)
	return s
}

func (s *queuedSource) Poll(ctx context.Context, _ int) ([]intake.Task, error) {
	ch := make(chan intake.Task, 1)
	s.mu.Lock()
	s.waiting = append(s.waiting, ch)
	s.answerLocked()
	s.arrived.Broadcast()
	s.mu.Unlock()
	var t intake.Task
	select {
	case t = <-ch:
	case <-ctx.Done():
		s.mu.Lock()
		defer s.mu.Unlock()
		if i := slices.Index(s.waiting, ch); i >= 0 {
			s.waiting = slices.Delete(s.waiting, i, i+1)
			return nil, ctx.Err()
		}
		t = <-ch // answered as ctx ended: the task is the worker's
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.failed {
		s.failed = true
		return []intake.Task{t}, errors.New("the first answer fails")
	}
	return []intake.Task{t}, nil
}

// answerLocked gives the ready tasks to the oldest polls waiting, one
// each, once the last answer is Taken.
func (s *queuedSource) answerLocked() {
	for s.untaken == 0 && len(s.ready) > 0 && len(s.waiting) > 0 {
		s.untaken++
		s.waiting[0] <- s.ready[0]
		s.waiting, s.ready = s.waiting[1:], s.ready[1:]
	}
}

// put queues t once a poll waits.
func (s *queuedSource) put(t intake.Task) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for len(s.waiting) == 0 {
		s.arrived.Wait()
	}
	s.ready = append(s.ready, t)
	s.answerLocked()
}

func (s *queuedSource) taken() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.untaken--
	s.answerLocked()
}

// queuedTask is the one task of key k, delivered anew by each return.
type queuedTask struct {
	src     *queuedSource
	returns *atomic.Int32
}

func (t *queuedTask) ID() string                              { return "A" }
func (t *queuedTask) Payload() []byte                         { return nil }
func (t *queuedTask) Deliveries() int                         { return 1 }
func (t *queuedTask) Key() string                             { return "k" }
func (t *queuedTask) InProgress(context.Context) error        { return nil }
func (t *queuedTask) Ack(context.Context) error               { return nil }
func (t *queuedTask) Terminate(context.Context, string) error { return nil }
func (t *queuedTask) Taken()                                  { t.src.taken() }
func (t *queuedTask) Nack(context.Context, time.Duration) error {
	if t.returns.Add(1) < maxReturns {
		t.src.put(&queuedTask{src: t.src, returns: t.returns})
	}
	return nil
}

const maxReturns = 50

// A keyed task A goes back (its poll failed), and the key is fenced.
// The source gives A again to the oldest poll waiting, which began before
// the fence: the fence stops A, rightly, as that poll might have brought
// a later task of the key. But A's own return must not fence the key
// anew: the poll that gets A next began while A was out, and would be
// stopped too, and so on, the two pollers taking turns, for ever. A went
// back at once, before its poll was Taken, so the source, which keeps
// order, gave out nothing of its key meanwhile: the fence stands as it
// was, and A runs from the next poll.
func TestKeyFenceLetsTheReturnedTaskRun(t *testing.T) {
	src := newQueuedSource()
	var ran atomic.Bool
	var returns atomic.Int32
	newWorker(t, intake.Config{
		Source:      src,
		Supplier:    slots.NewFixed(4),
		MinPollers:  2,
		MaxPollers:  2,
		MaxBatch:    1,
		PollBackoff: func(int) time.Duration { return 0 },
		OnError:     func(error) {},
		Handler: func(context.Context, intake.Task) error {
			ran.Store(true)
			return nil
		},
	})
	src.put(&queuedTask{src: src, returns: &returns})
	eventually(t, 10*time.Second, func() bool { return ran.Load() || returns.Load() >= maxReturns },
		"A ran or went back %d times", maxReturns)
	require.True(t, ran.Load(), "A went back %d times and never ran: the fence stopped its own redelivery", returns.Load())
	require.LessOrEqual(t, returns.Load(), int32(2), "one return for the failed poll, one for the fence")
}
