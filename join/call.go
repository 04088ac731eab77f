package join

import (
	"github.com/weftrt/weft/internal/core"
	"github.com/weftrt/weft/scheduler"
)

// Call computes f(w, x) and f(w, y), possibly in parallel, and returns
// both results. It is Join for hot recursive kernels: the arguments and
// results travel by value in a pooled frame, so when f is a function that
// captures nothing (a top-level function), Call allocates nothing at all,
// and a call whose second half nobody takes costs a few plain stores and
// loads on top of the two calls of f.
//
//	func fib(w *scheduler.Worker, n int) int {
//		if n < 2 {
//			return n
//		}
//		a, b := join.Call(w, fib, n-1, n-2)
//		return a + b
//	}
//
// A worker keeps forks only for its outermost joins: eight levels of
// joins past the last fork a heartbeat published. A thief is given the
// oldest fork first, which holds the most work, so a fork deeper than
// those would be published only after them. Call therefore runs a
// deeper join as two plain calls, f(w, x) and then f(w, y), which costs
// little more than calling f twice; once the worker's outer forks are
// taken, its joins make forks again. So the two calls of one Call must
// not wait for each other (where they run one after the other, such a
// wait never ends): halves that talk to each other are for Join, or a
// scope.
//
// A plain-call join still pays a call of Call itself and two calls of f
// through a function value: Call is too big for Go to inline. A hot
// recursion asks Plain first and makes its two calls itself, which costs
// what the sequential code costs (see Plain). Built with a CPU profile of
// the program (go build -pgo), Go inlines Call into a hot recursion,
// which takes most of that cost away too (docs/forks.md).
//
// Panics behave as in Join, except that in a join run as plain calls a
// panic in f(w, x) skips f(w, y), and the panic leaves Call as it is:
// it goes on to the nearest join that made a fork, which settles its own
// other half and raises it, as a *scheduler.Panic with the original value
// and stack, to its caller. So a recover around a Call deep in a
// recursion may get the original value instead of a *scheduler.Panic
// (which of the two depends on the heartbeat); the task's waiter always
// gets a *scheduler.Panic.
// w must not be nil (see CallOn).
func Call[T, R any](w *scheduler.Worker, f func(*scheduler.Worker, T) R, x, y T) (R, R) {
	// The plain path first, as small as it can be: where a profile lets
	// Go inline Call (go build -pgo), f, a top-level function, becomes a
	// direct call. The checks are on the way to callChecked, which a nil
	// f or w (and, in race builds, every call) takes.
	if !checkWorker && f != nil && Plain(w) {
		return f(w, x), f(w, y)
	}
	return callChecked(w, f, x, y)
}

// callChecked is Call past its plain path: it names a misuse, then forks
// or, where the worker says so, runs the two calls plainly.
func callChecked[T, R any](w *scheduler.Worker, f func(*scheduler.Worker, T) R, x, y T) (R, R) {
	if f == nil {
		panic("weft/join: Call with a nil function")
	}
	if w == nil {
		panic(errNilWorker)
	}
	if checkWorker && !w.IsCurrent() {
		panic(errForeignWorker)
	}
	e := engine(w)
	if !e.Direct() {
		return callForked(e, w, f, x, y)
	}
	// Deeper than the forks the worker keeps (race builds only: the
	// others took this path in Call). A panic goes on to the join that
	// made the nearest fork, which raises it as a *scheduler.Panic.
	return f(w, x), f(w, y)
}

// callForked is Call with a fork. It is a function of its own so that
// Call, on the direct path that nearly every join of a deep recursion
// takes, sets up no deferred call and keeps a small frame.
func callForked[T, R any](e *core.Worker, w *scheduler.Worker, f func(*scheduler.Worker, T) R, x, y T) (rx, ry R) {
	// The frame cached for this depth (written out here: Go does not
	// inline a generic helper that asserts a generic type).
	fr, ok := e.EnterFrame().(*valueFrame[T, R])
	if !ok {
		fr = newValueFrame[T, R](e)
	}
	fr.f, fr.arg = f, y
	e.Fork(&fr.fork)
	defer func() {
		// Nothing to do unless a half is panicking (see half.unwind); the
		// deferred function must call recover itself to stop the panic.
		if fr.fork.InUse() {
			panic(fr.unwind(e, recover(), fr.run, fr.leave))
		}
	}()
	rx = f(w, x)
	if e.Reclaim(&fr.fork) {
		ry = f(w, y)
		fr.leaveInline(e)
		return rx, ry
	}
	ry, p := fr.result, fr.panic
	fr.leave(e)
	core.Repanic(p)
	return rx, ry
}

// valueFrame is Call's job record for f(w, y).
type valueFrame[T, R any] struct {
	half
	f      func(*scheduler.Worker, T) R
	arg    T
	result R // written by a thief before fork.Done
}

// run computes the second call into the frame.
func (fr *valueFrame[T, R]) run(w *scheduler.Worker) {
	fr.result = fr.f(w, fr.arg)
}

// RunJob runs the second call on a thief.
func (fr *valueFrame[T, R]) RunJob(w *core.Worker) {
	core.RunThen((*scheduler.Worker)(w), fr.run, fr.done)
}

// done hands the thief's panic (nil if none) to the owner and sets the
// latch; the owner may reuse fr from here on.
func (fr *valueFrame[T, R]) done(p *scheduler.Panic) {
	fr.panic = p
	fr.fork.Done()
}

// leaveInline is leave for a join that ran its second half inline: no
// thief wrote result or panic, so only the arguments need dropping.
func (fr *valueFrame[T, R]) leaveInline(w *core.Worker) {
	var zt T
	fr.f, fr.arg = nil, zt
	w.Unfork(&fr.fork)
}

// leave ends the join: it drops the frame's references so that the GC can
// collect what they point to, and frees the frame for the next join at
// this depth.
func (fr *valueFrame[T, R]) leave(w *core.Worker) {
	var zt T
	var zr R
	fr.f, fr.arg, fr.result, fr.panic = nil, zt, zr, nil
	w.Unfork(&fr.fork)
}

// newValueFrame makes the frame of the current depth, the first time a
// Call reaches it (or when it last held another kind of frame).
func newValueFrame[T, R any](w *core.Worker) *valueFrame[T, R] {
	fr := &valueFrame[T, R]{}
	fr.fork.Init(w, fr)
	w.CacheFrame(fr, &fr.fork)
	return fr
}
