package join

import (
	"github.com/weftrt/weft/internal/core"
	"github.com/weftrt/weft/scheduler"
)

// Both runs a and b, possibly in parallel, and returns their results: Join
// for closures that return what they compute, like Rayon's join. The two
// may differ in type and in what they do, which Call's single function
// cannot express:
//
//	count, longest := join.Both(w,
//		func(w *scheduler.Worker) int { return countNodes(w, t) },
//		func(w *scheduler.Worker) string { return longestName(w, t) })
//
// b's result travels back in the worker's pooled frame, so b needs to
// capture only its inputs; Go still allocates b on the heap (another
// worker may run it), but nothing that it would assign. That is one small
// allocation per fork where the same code written with Join makes two (b,
// and the variable b assigns): about a third less CPU per fork on fib(30)
// fully forked (see docs/forks.md). Call remains the form that allocates
// nothing.
//
// Panics behave as in Join; w must not be nil (see BothOn).
func Both[A, B any](w *scheduler.Worker, a func(*scheduler.Worker) A, b func(*scheduler.Worker) B) (ra A, rb B) {
	checkEntry("Both", w, a == nil, b == nil)
	e := engine(w)
	fr, ok := e.EnterFrame().(*resultFrame[B])
	if !ok {
		fr = newResultFrame[B](e)
	}
	fr.b = b
	e.Fork(&fr.fork)
	defer func() {
		if fr.fork.InUse() { // a half is panicking: see half.unwind
			panic(fr.unwind(e, recover(), fr.run, fr.leave))
		}
	}()
	ra = a(w)
	if e.Reclaim(&fr.fork) {
		rb = b(w)
		fr.b = nil
		e.Unfork(&fr.fork)
		return ra, rb
	}
	rb, p := fr.result, fr.panic
	fr.leave(e)
	core.Repanic(p)
	return ra, rb
}

// resultFrame is Both's job record for b.
type resultFrame[B any] struct {
	half
	b      func(*scheduler.Worker) B
	result B // written by a thief before fork.Done
}

// run computes b into the frame.
func (fr *resultFrame[B]) run(w *scheduler.Worker) { fr.result = fr.b(w) }

// RunJob runs b on a thief.
func (fr *resultFrame[B]) RunJob(w *core.Worker) {
	core.RunThen((*scheduler.Worker)(w), fr.run, fr.done)
}

// done is valueFrame.done for Both.
func (fr *resultFrame[B]) done(p *scheduler.Panic) {
	fr.panic = p
	fr.fork.Done()
}

// leave is valueFrame.leave for Both: it drops b, and with it what b
// captured.
func (fr *resultFrame[B]) leave(w *core.Worker) {
	var zb B
	fr.b, fr.result, fr.panic = nil, zb, nil
	w.Unfork(&fr.fork)
}

// newResultFrame is newValueFrame for Both's frames.
func newResultFrame[B any](w *core.Worker) *resultFrame[B] {
	fr := &resultFrame[B]{}
	fr.fork.Init(w, fr)
	w.CacheFrame(fr, &fr.fork)
	return fr
}
