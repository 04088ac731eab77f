package join

import (
	"context"

	"github.com/weftrt/weft/scheduler"
)

// Join runs a and b, possibly in parallel, and returns when both have
// returned. Each receives the worker that runs it. On a worker, Join
// offers b to thieves, runs a itself, and runs b too if nobody took it;
// while a thief runs b, Join runs other jobs or sleeps.
//
// If a or b panics, Join re-raises the panic after both have finished, as
// a *scheduler.Panic with the original value and stack; a's panic wins if
// both panic.
//
// w is the current worker. With a nil w (a goroutine outside any pool),
// Join runs on scheduler.Default() and blocks the caller until both are
// done; to use another pool from outside, call Join inside Pool.Run.
func Join(w *scheduler.Worker, a, b func(*scheduler.Worker)) {
	if a == nil || b == nil {
		panic("weft/join: Join with a nil function")
	}
	if w == nil {
		outside(func(w *scheduler.Worker) { Join(w, a, b) })
		return
	}
	f := closureFrameAt(w)
	f.b = b
	w.Push(&f.job)
	pa := scheduler.CatchWorker(a, w)
	if f.reclaim(w) {
		f.panic = scheduler.CatchWorker(b, w)
	}
	pb := f.panic
	f.b = nil // let the closure be collected
	w.LeaveFrame()
	raise(pa, pb)
}

// closureFrame is Join's job record for b.
type closureFrame struct {
	half
	b func(*scheduler.Worker)
}

// RunJob runs b on a thief.
func (f *closureFrame) RunJob(w *scheduler.Worker) {
	f.panic = scheduler.CatchWorker(f.b, w)
	f.latch.Set() // the owner may reuse f from here on
}

func closureFrameAt(w *scheduler.Worker) *closureFrame {
	f, ok := w.EnterFrame().(*closureFrame)
	if !ok {
		f = &closureFrame{}
		f.init(w, f)
		w.CacheFrame(f)
		return f
	}
	f.reuse()
	return f
}

// outside runs f on the default pool from a goroutine that is not a
// worker. The default pool is never closed, so Run cannot fail.
func outside(f func(*scheduler.Worker)) {
	if err := scheduler.Default().Run(context.Background(), f); err != nil {
		panic("weft/join: " + err.Error())
	}
}
