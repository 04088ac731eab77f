package join

import "github.com/weftrt/weft/scheduler"

// Join runs a and b, possibly in parallel, and returns when both have
// returned. Each receives the worker that runs it. Join offers b to
// thieves, runs a itself, and runs b too if nobody took it; while a thief
// runs b, Join runs other jobs or sleeps.
//
// If a or b panics, Join re-raises the panic after both have finished, as
// a *scheduler.Panic with the original value and the stack where it
// happened; a's panic wins if both panic.
//
// w is the current worker, which must not be nil; a goroutine outside the
// pool calls On instead.
func Join(w *scheduler.Worker, a, b func(*scheduler.Worker)) {
	if a == nil || b == nil {
		panic("weft/join: Join with a nil function")
	}
	if w == nil {
		panic(errNilWorker)
	}
	f := closureFrameAt(w)
	f.b = b
	w.Push(&f.job)
	done := false
	defer f.onPanic(w, &done, b)
	a(w)
	if f.reclaim(w) {
		b(w)
	}
	pb := f.panic
	f.b = nil // let the closure be collected
	w.LeaveFrame()
	done = true
	scheduler.Repanic(pb)
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
