package join

import (
	"github.com/weftrt/weft/latch"
	"github.com/weftrt/weft/scheduler"
)

// half is the part of a join frame that the second half's job touches,
// wherever it runs. Frames live in the worker's per-depth frame cache
// (scheduler.Worker.EnterFrame) and are reused by the next join at the
// same depth, so a join allocates nothing of its own.
type half struct {
	job   scheduler.Job
	latch latch.Owned      // set by a thief once it has run the half
	panic *scheduler.Panic // the half's panic; written before latch is set
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
}

// reclaim is called after the first half returned. It pops the second
// half back and reports true if no thief took it; otherwise it runs other
// jobs, or sleeps, until the thief sets the latch, and reports false.
func (h *half) reclaim(w *scheduler.Worker) bool {
	for !h.latch.Probe() {
		switch j := w.Pop(); j {
		case &h.job:
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

// raise re-raises the first half's panic if there was one, else the
// second's, once both halves have finished.
func raise(a, b *scheduler.Panic) {
	if a != nil {
		panic(a)
	}
	scheduler.Repanic(b)
}
