package intake_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/weftrt/weft/intake"
	"github.com/weftrt/weft/slots"
)

// gatedHandBack is a trapTask whose HandBack waits for gate: a hand-back
// that is a round trip to a server.
type gatedHandBack struct {
	*trapTask
	gate <-chan struct{}
}

func (k gatedHandBack) HandBack(ctx context.Context) error {
	<-k.gate
	return k.trapTask.HandBack(ctx)
}

// A task the source delivered beyond what the poll asked for, whose
// Deliveries calls runtime.Goexit as the poller counts it, is still
// handed back; and Shutdown, which waits for the poller's hand-backs,
// must wait for this one too. Shutdown's callers may close the source as
// soon as it returns ("the pool and the source must outlive the worker"):
// a hand-back still in flight then calls into a closed source, and after
// Close, whose cancelled settlements it misses, it goes on unwatched.
func TestExtraTaskDeliveriesGoexitHandBackIsWaitedFor(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := caseMaker(false)(2, 1, "Deliveries")
		gate := make(chan struct{})
		var once sync.Once
		open := func() { once.Do(func() { close(gate) }) }
		defer open() // on a failure too: a hand-back left waiting deadlocks the bubble
		extra := gatedHandBack{g.tasks[1], gate}
		w := newWorker(t, intake.Config{
			Source:   &seqSource{answers: []answer{{tasks: []intake.Task{g.tasks[0], extra}}}},
			Supplier: slots.NewFixed(1), Pool: newPool(t, 1), // MaxBatch 1: task 1 is extra
			MaxPollers: 1, Handler: nop,
			OnError: func(err error) {
				g.onError(t)(err)
				if g.trap.sprung(err) {
					// The poller's Goexit: no task on a pool worker, no
					// worker goroutine replaced, as ErrGoexit's own text says.
					assert.NotContains(t, err.Error(), "pool worker")
					assert.Contains(t, err.Error(), "its Deliveries called runtime.Goexit")
				}
			},
		})
		synctest.Wait() // the poll is in; the extra task's hand-back waits at gate
		select {
		case <-g.trap.fired:
		default:
			t.Fatal("the trap was never sprung: the test does not test what it says")
		}
		var returned atomic.Bool
		go func() {
			_ = w.Shutdown(context.Background())
			returned.Store(true)
		}()
		synctest.Wait()
		require.False(t, returned.Load(), "Shutdown returned while the worker was still handing a task back to the source")
		open()
		synctest.Wait()
		require.True(t, returned.Load(), "Shutdown did not return once the hand-back had")
		// The poller hands the extra task back before it dispatches the
		// other, which the Shutdown meanwhile has it hand back too.
		requireFigures(t, w, figures{Received: 2, HandedBack: 2})
		require.Equal(t, settlements{HandedBack: 2}, g.c.get())
		requireReportedOnce(t, g)
	})
}
