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
// Panics behave as in Join; w must not be nil (see CallOn).
func Call[T, R any](w *scheduler.Worker, f func(*scheduler.Worker, T) R, x, y T) (rx, ry R) {
	if f == nil {
		panic("weft/join: Call with a nil function")
	}
	if w == nil {
		panic(errNilWorker)
	}
	fr := valueFrameAt[T, R](w)
	fr.f, fr.arg = f, y
	w.Push(&fr.job)
	done := false
	defer fr.onPanic(w, &done, fr.run)
	rx = f(w, x)
	if fr.reclaim(w) {
		fr.result = f(w, y)
	}
	ry, pb := fr.result, fr.panic
	fr.clear()
	w.LeaveFrame()
	done = true
	scheduler.Repanic(pb)
	return rx, ry
}

// valueFrame is Call's job record for f(w, y).
type valueFrame[T, R any] struct {
	half
	f      func(*scheduler.Worker, T) R
	arg    T
	result R // written before latch is set
}

// run computes the second call into the frame.
func (fr *valueFrame[T, R]) run(w *scheduler.Worker) {
	fr.result = fr.f(w, fr.arg)
}

// RunJob runs the second call on a thief.
func (fr *valueFrame[T, R]) RunJob(w *scheduler.Worker) {
	fr.panic = scheduler.CatchWorker(fr.run, w)
	fr.latch.Set() // the owner may reuse fr from here on
}

// clear drops the frame's references so the GC can collect them.
func (fr *valueFrame[T, R]) clear() {
	var zt T
	var zr R
	fr.arg, fr.result, fr.f = zt, zr, nil
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
