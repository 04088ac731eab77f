package join

import "github.com/weftrt/weft/scheduler"

// Call computes f(w, x) and f(w, y), possibly in parallel, and returns
// both results. It is Join for hot recursive kernels: the arguments and
// results travel by value in a pooled frame, so when f is a function that
// captures nothing (a top-level function), Call allocates nothing at all
// in steady state.
//
//	func fib(w *scheduler.Worker, n int) int {
//		if n < 2 {
//			return n
//		}
//		a, b := join.Call(w, fib, n-1, n-2)
//		return a + b
//	}
//
// Panics and a nil w behave as in Join.
func Call[T, R any](w *scheduler.Worker, f func(*scheduler.Worker, T) R, x, y T) (rx, ry R) {
	if f == nil {
		panic("weft/join: Call with a nil function")
	}
	if w == nil {
		return callOutside(f, x, y)
	}
	fr := valueFrameAt[T, R](w)
	fr.f, fr.arg = f, y
	w.Push(&fr.job)
	pa := callCatch(f, w, x, &rx)
	if fr.reclaim(w) {
		fr.run(w)
	}
	ry, pb := fr.result, fr.panic
	var zt T
	var zr R
	fr.arg, fr.result, fr.f = zt, zr, nil // drop references for the GC
	w.LeaveFrame()
	raise(pa, pb)
	return rx, ry
}

// callOutside is kept out of Call so that its closure, which captures the
// results, does not make Call's results escape on the hot path.
func callOutside[T, R any](f func(*scheduler.Worker, T) R, x, y T) (rx, ry R) {
	outside(func(w *scheduler.Worker) { rx, ry = Call(w, f, x, y) })
	return rx, ry
}

// valueFrame is Call's job record for f(w, y).
type valueFrame[T, R any] struct {
	half
	f      func(*scheduler.Worker, T) R
	arg    T
	result R // written before latch is set
}

func (fr *valueFrame[T, R]) run(w *scheduler.Worker) {
	fr.panic = callCatch(fr.f, w, fr.arg, &fr.result)
}

// RunJob runs the second call on a thief.
func (fr *valueFrame[T, R]) RunJob(w *scheduler.Worker) {
	fr.run(w)
	fr.latch.Set() // the owner may reuse fr from here on
}

func callCatch[T, R any](f func(*scheduler.Worker, T) R, w *scheduler.Worker, x T, r *R) (p *scheduler.Panic) {
	done := false
	defer func() {
		if !done { // recover only when unwinding: it is not free
			p = scheduler.Recovered(recover())
		}
	}()
	*r = f(w, x)
	done = true
	return nil
}

func valueFrameAt[T, R any](w *scheduler.Worker) *valueFrame[T, R] {
	fr, ok := w.EnterFrame().(*valueFrame[T, R])
	if !ok {
		fr = &valueFrame[T, R]{}
		fr.init(w, fr)
		w.CacheFrame(fr)
		return fr
	}
	fr.reuse()
	return fr
}
