package intake_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/weftrt/weft/intake"
	"github.com/weftrt/weft/scheduler"
	"github.com/weftrt/weft/slots"
)

// syncAckFailTask is a trapTask whose AckAsync fails, calling done before
// it returns: on the pool worker that ran the task.
type syncAckFailTask struct{ *trapTask }

func (a syncAckFailTask) AckAsync(_ context.Context, _ time.Duration, done func(error)) {
	done(errAck)
}

// A panic in OnError used to unwind from the middle of the worker's
// bookkeeping on whichever goroutine reported. On a pool worker, the pool
// gives it to its panic handler, and the process goes on with that
// bookkeeping cut short: here a slot marked used was never released (the
// only one: no other task ran) or a settlement never ended, and Shutdown
// waited for ever. Now the worker finishes its bookkeeping and raises the
// panic as a panic of a task spawned on its pool: the panic handler gets
// it (with none, the program crashes, as before).
func TestOnErrorPanicHangsNothing(t *testing.T) {
	for _, c := range []struct {
		name   string
		source func(*goexitCase) intake.Source
		sup    func() slots.Supplier
		want   figures
	}{
		// The supplier panics marking the first task's slot used: the
		// task goes back unrun, and runs again.
		{"AfterMarkSlotUsed", func(g *goexitCase) intake.Source {
			return &seqSource{answers: []answer{{tasks: g.list(false)[:1]}, {tasks: g.list(false)[1:]}}}
		}, func() slots.Supplier {
			s := &panickySupplier{Supplier: slots.NewFixed(1)}
			s.markArmed.Store(true)
			return s
		}, figures{Received: 2, Started: 1, Acked: 1, HandedBack: 1}},
		// The source fails an Ack on the pool worker that ran the task.
		{"AfterFailedAckAsync", func(g *goexitCase) intake.Source {
			return &seqSource{answers: []answer{{tasks: []intake.Task{syncAckFailTask{g.tasks[0]}}}, {tasks: g.list(false)[1:]}}}
		}, func() slots.Supplier { return slots.NewFixed(1) },
			figures{Received: 2, Started: 2, Acked: 1, SettleErrors: 1}},
		// The poller reports a failed poll.
		{"AfterFailedPoll", func(g *goexitCase) intake.Source {
			return &seqSource{answers: []answer{{err: errPoll}, {tasks: g.list(false)[1:]}}}
		}, func() slots.Supplier { return slots.NewFixed(1) },
			figures{Received: 1, Started: 1, Acked: 1}},
	} {
		t.Run(c.name, func(t *testing.T) {
			g := caseMaker(true)(2, 0, "")
			var handled atomic.Pointer[scheduler.Panic]
			pool, err := scheduler.New(scheduler.WithWorkers(2), scheduler.WithName(t.Name()),
				scheduler.WithPanicHandler(func(p *scheduler.Panic) { handled.Store(p) }))
			require.NoError(t, err)
			t.Cleanup(pool.Close)
			w := newWorker(t, intake.Config{
				Source: c.source(g), Supplier: c.sup(), Pool: pool, MaxPollers: 1,
				PollBackoff: intake.Exponential(0, 0), Handler: nop,
				OnError: func(err error) {
					t.Logf("worker: %v", err)
					g.trap.spring() // panics, the first time
				},
			})
			g.trap.wait(t)
			eventually(t, 10*time.Second, func() bool { return g.c.acked.Load() == 1 }, "the last task acknowledged: %+v", w.Stats())
			eventually(t, 10*time.Second, func() bool { return handled.Load() != nil }, "OnError's panic given to the pool's panic handler")
			require.ErrorIs(t, handled.Load(), errTrap)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			require.NoError(t, w.Shutdown(ctx), "the worker's books never balanced: %+v", w.Stats())
			requireFigures(t, w, c.want)
		})
	}
}
