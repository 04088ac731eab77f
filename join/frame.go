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

// unwind is the panic path of Join, Call and Both, called by the
// function they defer with what its recover returned. On the normal path a
// join has left its frame (fork idle) before that function runs, and it
// returns without calling recover. On a panic (or runtime.Goexit) from
// either half, unwind finishes the second half if it was not the one that
// panicked (runs it here if nobody took it, or waits for its thief),
// leaves the frame with leave, and returns the panic to raise again, as a
// *scheduler.Panic. The unwinding panic wins over one from the second
// half, as a's wins in Join.
func (h *half) unwind(e *core.Worker, r any, runInline func(*scheduler.Worker), leave func(*core.Worker)) *scheduler.Panic {
	p := core.Recovered[scheduler.Panic](r) // here, while the panicking frames are on the stack
	h.settle(e, runInline, leave)
	return p
}

// settle finishes the second half on the panic path and leaves the frame.
// Waiting for a thief runs other jobs, and one of them may call
// runtime.Goexit: the goroutine then unwinds out of the wait, past the
// join's deferred guard, which never resumes, and no other guard waits
// for this half. So settle's own deferred function carries on where the
// wait stopped, as WaitOut does for scopes: without it the task's waiter
// would be released while the half still runs on the thief, which would
// write into a frame that nobody waits for (on a stand-in, one kept for
// the next join at this depth).
func (h *half) settle(e *core.Worker, runInline func(*scheduler.Worker), leave func(*core.Worker)) {
	done := false
	defer func() {
		if done {
			return
		}
		if r := recover(); r != nil {
			panic(r) // not a Goexit: jobs catch their panics, so this is no task's; let it through
		}
		h.settle(e, runInline, leave) // unwinding from a Goexit in a job run meanwhile
	}()
	// The fork is inline when the second half itself panicked, or when a
	// Goexit interrupted its inline run here: it must not run again.
	if !h.fork.RanInline() && e.Reclaim(&h.fork) {
		core.CatchWorker[scheduler.Panic](runInline, (*scheduler.Worker)(e))
	}
	leave(e)
	done = true
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
