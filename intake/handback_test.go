package intake_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/weftrt/weft/intake"
	"github.com/weftrt/weft/slots"
)

// recTask records how it was settled, and can fail its Terminate.
type recTask struct {
	fakeTask
	handBacks     atomic.Int64
	failTerminate bool
	mu            sync.Mutex
	reason        string
}

func (r *recTask) HandBack(context.Context) error { r.handBacks.Add(1); return nil }

func (r *recTask) Terminate(_ context.Context, reason string) error {
	r.mu.Lock()
	r.reason = reason
	r.mu.Unlock()
	if r.failTerminate {
		return errors.New("the server did not take it")
	}
	return nil
}

// oneTaskSource delivers one task, then waits for its context.
type oneTaskSource struct {
	task intake.Task
	sent atomic.Bool
}

func (o *oneTaskSource) Poll(ctx context.Context, _ int) ([]intake.Task, error) {
	if o.sent.CompareAndSwap(false, true) {
		return []intake.Task{o.task}, nil
	}
	<-ctx.Done()
	return nil, ctx.Err()
}

// A task that never ran is returned with HandBack where the task has it,
// so that a source whose every Nack counts a delivery (JetStream) does not
// count it.
func TestUnrunTaskIsHandedBackWithHandBacker(t *testing.T) {
	var nacked counter
	task := &recTask{fakeTask: fakeTask{id: "t", deliveries: 1, nacked: &nacked}}
	src := &gatedSource{task: task, polling: make(chan struct{}), answer: make(chan struct{})}
	sup := slots.NewPauseable(slots.NewFixed(1))
	w := newWorker(t, intake.Config{
		Source:   src,
		Supplier: sup,
		Handler: func(context.Context, intake.Task) error {
			t.Error("the task ran in a paused worker")
			return nil
		},
	})
	<-src.polling
	sup.Pause(slots.PauseOptions{}) // directly: the poll in flight goes on
	close(src.answer)
	eventually(t, 5*time.Second, func() bool { return w.Stats().HandedBack == 1 }, "handed back")
	require.NoError(t, w.Shutdown(context.Background()))
	require.EqualValues(t, 1, task.handBacks.Load())
	require.Zero(t, nacked.Load(), "no Nack: HandBack returned it")
	require.EqualValues(t, 1, w.Stats().HandedBack)
}

// gatedSource answers its first poll with task once answer is closed,
// having closed polling when the poll began; later polls wait for their
// context.
type gatedSource struct {
	task            intake.Task
	polling, answer chan struct{}
	sent            atomic.Bool
}

func (g *gatedSource) Poll(ctx context.Context, _ int) ([]intake.Task, error) {
	if g.sent.CompareAndSwap(false, true) {
		close(g.polling)
		<-g.answer
		return []intake.Task{g.task}, nil
	}
	<-ctx.Done()
	return nil, ctx.Err()
}

// A terminate the source refused is reported and not counted: the task
// comes back and is terminated again. A panic's terminate reason is its
// value and type, without the stack, which goes to the error hook.
func TestTerminateCountedOnlyWhenTaken(t *testing.T) {
	for _, fail := range []bool{true, false} {
		task := &recTask{fakeTask: fakeTask{id: "t", deliveries: 1}, failTerminate: fail}
		var stack atomic.Bool
		w := newWorker(t, intake.Config{
			Source:        &oneTaskSource{task: task},
			Supplier:      slots.NewFixed(1),
			MaxDeliveries: 1,
			OnError: func(err error) {
				if strings.Contains(err.Error(), "goroutine") {
					stack.Store(true)
				}
			},
			Handler: func(context.Context, intake.Task) error { panic("boom") },
		})
		eventually(t, 5*time.Second, func() bool { return w.Stats().Failed == 1 && w.Stats().Settling == 0 }, "settled")
		require.NoError(t, w.Shutdown(context.Background()))
		s := w.Stats()
		if fail {
			require.Zero(t, s.Terminated, "a refused terminate is not counted")
			require.EqualValues(t, 1, s.SettleErrors)
		} else {
			require.EqualValues(t, 1, s.Terminated)
		}
		task.mu.Lock()
		require.Equal(t, "weft: task panicked: boom (string)", task.reason)
		task.mu.Unlock()
		require.True(t, stack.Load(), "the stack went to the error hook")
	}
}
