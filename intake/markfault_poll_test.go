package intake_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/weftrt/weft/intake"
	"github.com/weftrt/weft/slots"
)

var errSourceDown = errors.New("the source is down")

// downAfterEndSource answers its first poll with its task. Its second
// poll signals inFlight, waits for the poll's context to end, and then
// fails with errSourceDown, an error of its own (the connection broke),
// neither the context's nor wrapping it. Later polls signal later and
// wait for their context (the worker's stop).
type downAfterEndSource struct {
	task     intake.Task
	polls    atomic.Int32
	inFlight chan struct{} // closed as the second poll begins
	later    chan struct{} // closed as the third poll begins
}

func (s *downAfterEndSource) Poll(ctx context.Context, _ int) ([]intake.Task, error) {
	switch s.polls.Add(1) {
	case 1:
		return []intake.Task{s.task}, nil
	case 2:
		close(s.inFlight)
		<-ctx.Done()
		return nil, errSourceDown
	case 3:
		close(s.later)
	}
	<-ctx.Done()
	return nil, ctx.Err()
}

// markWaitSupplier fails marking the first slot (a panic), once the
// source's second poll is in flight.
type markWaitSupplier struct {
	slots.Supplier
	wait  <-chan struct{}
	armed atomic.Bool
}

func (s *markWaitSupplier) MarkSlotUsed(u slots.UsedInfo) {
	if s.armed.CompareAndSwap(true, false) {
		<-s.wait
		panic("supplier MarkSlotUsed failed")
	}
	s.Supplier.MarkSlotUsed(u)
}

// The supplier fails marking the slot of a task of poll 1, so that task
// goes back unrun and ends its poll's epoch (haltedBack), which ends
// poll 2 of the same epoch, in flight at the source. The source then
// fails poll 2 for a reason of its own. The worker is neither paused nor
// stopping: that is a failed poll, to report, count and back off from,
// not a cancellation (before, it was taken for one and went unseen).
func TestPollErrorAfterMarkFaultIsReported(t *testing.T) {
	var acked, nacked, terminated counter
	src := &downAfterEndSource{
		task:     &fakeTask{id: "a", deliveries: 1, acked: &acked, nacked: &nacked, terminated: &terminated},
		inFlight: make(chan struct{}),
		later:    make(chan struct{}),
	}
	sup := &markWaitSupplier{Supplier: slots.NewFixed(2), wait: src.inFlight}
	sup.armed.Store(true)
	var mu sync.Mutex
	var reported []error
	var backoffs atomic.Int32
	w := newWorker(t, intake.Config{
		Source: src, Supplier: sup, MaxBatch: 1,
		MinPollers: 1, MaxPollers: 1,
		PollBackoff: func(int) time.Duration {
			backoffs.Add(1)
			return 0
		},
		OnError: func(err error) {
			mu.Lock()
			defer mu.Unlock()
			reported = append(reported, err)
		},
		Handler: func(context.Context, intake.Task) error {
			t.Error("the task ran though its slot was not marked")
			return nil
		},
	})
	// One poller: the third poll begins once the second is taken in and
	// its pause taken. The deadline only turns a hang into a failure.
	eventually(t, 10*time.Second, func() bool {
		select {
		case <-src.later:
			return true
		default:
			return false
		}
	}, "the poller never polled a third time")
	require.False(t, w.Paused())
	mu.Lock()
	var down int
	for _, err := range reported {
		if errors.Is(err, errSourceDown) {
			down++
		}
	}
	all := append([]error(nil), reported...)
	mu.Unlock()
	require.Equal(t, 1, down, "the source's error went unreported: OnError got %v", all)
	require.EqualValues(t, 1, w.Stats().PollErrors, "the failed poll is not counted")
	require.EqualValues(t, 1, backoffs.Load(), "the poller took no PollBackoff pause")
	require.NoError(t, w.Shutdown(context.Background()))
	require.EqualValues(t, 1, nacked.Load(), "the unrun task did not go back")
	require.Zero(t, acked.Load()+terminated.Load())
}
