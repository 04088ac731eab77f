package join

import (
	"github.com/weftrt/weft/latch"
	"github.com/weftrt/weft/scheduler"
)

// half is the part of a join frame that the second half's job touches,
// wherever it runs. Frames live in the worker's per-depth frame cache
// (scheduler.Worker.EnterFrame) and are reused by the next join at the
// same depth, so a join allocates nothing of its own.
//
// A join does not catch its first half's panic on the way: it defers
// onPanic, which costs nothing until a panic comes, and only then stops
// it, finishes the second half and raises it again as a *scheduler.Panic.
type half struct {
	job   scheduler.Job
	latch latch.Owned      // set by a thief once it has run the half
	panic *scheduler.Panic // a thief's panic; written before latch is set
	// inline is set by the owner when it pops the second half back to run
	// it itself, so that onPanic knows the second half is the one that
	// panicked. Owner-only.
	inline bool
}

// init prepares a new frame for worker w; r is the frame itself.
func (h *half) init(w *scheduler.Worker, r scheduler.Runner) {
	h.job.Init(r)
	h.latch.Init(w.Sleep(), w.Index())
}

// reuse makes a cached frame ready for another join. Only a frame whose
// half was stolen has a set latch; the common case costs one load.
func (h *half) reuse() {
	if h.latch.Probe() {
		h.latch.Reset()
	}
	h.panic = nil
	h.inline = false
}

// reclaim is called after the first half returned. It pops the second
// half back and reports true if no thief took it; otherwise it runs other
// jobs, or sleeps, until the thief sets the latch, and reports false.
func (h *half) reclaim(w *scheduler.Worker) bool {
	for !h.latch.Probe() {
		switch j := w.Pop(); j {
		case &h.job:
			h.inline = true
			return true
		case nil:
			// A thief has it. Jobs are stolen oldest first, so everything
			// older than ours is gone too: our deque is empty.
			w.WaitUntil(&h.latch)
			return false
		default:
			// Newer work left on our deque (a detached push): run it.
			w.Execute(j)
		}
	}
	return false
}

// onPanic is deferred by Join and Call; done is set once the join has
// finished normally. On a panic it stops the panic, finishes the second
// half (nothing to do if it was running inline: the panic came from it;
// otherwise run it if nobody took it, or wait for its thief), leaves the
// frame and raises the panic again. The panic that is unwinding wins over
// any panic of the second half, as a's wins in Join.
//
// It must be deferred directly (defer h.onPanic(...)) for its recover to
// stop the panic.
func (h *half) onPanic(w *scheduler.Worker, done *bool, runInline func(*scheduler.Worker)) {
	if *done {
		return
	}
	p := scheduler.Recovered(recover())
	if !h.inline && h.reclaim(w) {
		scheduler.CatchWorker(runInline, w)
	}
	w.LeaveFrame()
	panic(p)
}
