package join

import (
	"github.com/weftrt/weft/internal/core"
	"github.com/weftrt/weft/scheduler"
)

// half is the part of a join frame that the second half's job touches,
// wherever it runs. Frames live in the worker's per-depth frame cache
// (core.Worker.EnterFrame) and are reused by the next join at the
// same depth, so a join allocates nothing of its own.
//
// The second half starts as a private fork of the worker (see
// core.Fork): a few plain stores, nothing another goroutine can see.
// Only if a heartbeat published it can a thief run it, and only then do
// panic and the fork's latch come into play.
type half struct {
	fork  core.Fork
	panic *scheduler.Panic // a thief's panic; written before fork.Done
}

// unwind is the panic path of Join and Call, called by the function they
// defer with what its recover returned. On the normal path a join has left
// its frame (fork idle) before that function runs, and it returns without
// calling recover. On a panic (or runtime.Goexit) from either half, unwind
// finishes the second half if it was not the one that panicked (runs it
// here if nobody took it, or waits for its thief) and returns the panic to
// raise again, as a *scheduler.Panic, once the caller has left the frame.
// The unwinding panic wins over one from the second half, as a's wins in
// Join.
func (h *half) unwind(e *core.Worker, r any, runInline func(*scheduler.Worker)) *scheduler.Panic {
	p := core.Recovered(r)
	if !h.fork.RanInline() && e.Reclaim(&h.fork) {
		core.CatchWorker(runInline, (*scheduler.Worker)(e))
	}
	return p
}

// checkEntry panics with a message naming the mistake if fn (Join or
// Both) was handed a nil half or a worker that is nil or, in race-detector
// builds, not the calling goroutine's.
func checkEntry(fn string, w *scheduler.Worker, aNil, bNil bool) {
	if aNil || bNil {
		panic(nilHalf(fn, aNil))
	}
	if w == nil {
		panic(errNilWorker)
	}
	if checkWorker && !w.IsCurrent() {
		panic(errForeignWorker)
	}
}

// engine is w as the scheduler's engine knows it, with the fork and frame
// operations that join needs: the same pointer (scheduler.Worker is
// defined as core.Worker), so the conversion costs nothing.
func engine(w *scheduler.Worker) *core.Worker { return (*core.Worker)(w) }
