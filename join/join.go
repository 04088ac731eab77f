package join

import (
	"github.com/weftrt/weft/internal/core"
	"github.com/weftrt/weft/scheduler"
)

// Join runs a and b, possibly in parallel, and returns when both have
// returned. Each receives the worker that runs it. Join runs a at once and
// keeps b as a private fork of the worker: if no other worker needs work
// by the time a returns, Join simply calls b. Otherwise a heartbeat has
// offered b to thieves; Join runs b itself if nobody took it yet, or runs
// other jobs (or sleeps) until the thief that took it is done.
//
// a never escapes, but b may run on another worker, so Go allocates b
// (and any variable it assigns) on the heap: about two small allocations
// per Join. Both, whose closures return their results, makes one; for hot
// recursions use Call, which passes arguments and results by value and
// allocates nothing.
//
// If a or b panics, Join re-raises the panic after both have finished, as
// a *scheduler.Panic with the original value and the stack where it
// happened; a's panic wins if both panic.
//
// w is the current worker, which must not be nil; a goroutine outside the
// pool calls On instead.
func Join(w *scheduler.Worker, a, b func(*scheduler.Worker)) {
	checkEntry("Join", w, a == nil, b == nil)
	e := engine(w)
	f := closureFrameAt(e)
	f.b = b
	e.Fork(&f.fork)
	defer func() {
		if f.fork.InUse() { // a half is panicking: see half.unwind
			panic(f.unwind(e, recover(), f.b, f.leave))
		}
	}()
	a(w)
	if e.Reclaim(&f.fork) {
		b(w)
		f.leave(e)
		return
	}
	p := f.panic
	f.leave(e)
	core.Repanic(p)
}

// closureFrame is Join's job record for b.
type closureFrame struct {
	half
	b func(*scheduler.Worker)
}

// RunJob runs b on a thief.
func (f *closureFrame) RunJob(w *core.Worker) {
	core.RunThen((*scheduler.Worker)(w), f.b, f.done)
}

// done is valueFrame.done for Join.
func (f *closureFrame) done(p *scheduler.Panic) {
	f.panic = p
	f.fork.Done()
}

// leave ends the join, dropping b (and what it captured) so the GC can
// collect it, and frees the frame for the next join at this depth.
func (f *closureFrame) leave(w *core.Worker) {
	f.b, f.panic = nil, nil
	w.Unfork(&f.fork)
}

// closureFrameAt is valueFrameAt for Join's frames.
func closureFrameAt(w *core.Worker) *closureFrame {
	if f, ok := w.EnterFrame().(*closureFrame); ok {
		return f
	}
	return newClosureFrame(w)
}

func newClosureFrame(w *core.Worker) *closureFrame {
	f := &closureFrame{}
	f.fork.Init(w, f)
	w.CacheFrame(f, &f.fork)
	return f
}
