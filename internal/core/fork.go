package core

import (
	"sync/atomic"

	"github.com/weftrt/weft/latch"
)

// Fork is the scheduler's part of a fork-join frame: the second half of a
// join, which its worker keeps private until a heartbeat publishes it.
// The join package embeds a Fork in each of its frames.
//
// A fork starts private: only its worker knows of it, and registering it
// (Worker.Fork) is a few plain stores. If the worker reaches the end of
// the first half with the fork still private, Worker.Reclaim says "run it
// yourself" without touching anything another goroutine can see. Only a
// heartbeat (see heartbeat.go) moves a fork, always the worker's oldest
// private one, onto the worker's Chase-Lev deque, where thieves can take
// it; from then on it follows the deque protocol exactly as before. See
// docs/forks.md for the design and why it cannot lose or duplicate a half.
//
// The zero value is unusable: call Init once, when the frame is created.
type Fork struct {
	job Job
	// latch is set by the thief that ran a published fork; the owner
	// waits on it. Never touched while the fork is private.
	latch latch.Owned
	// state is owner-private (a plain field): only the fork's worker
	// reads or writes it, so it needs no synchronization. A thief learns
	// nothing from it; a thief only ever sees a published fork, through
	// the deque, whose push orders the frame's contents before the steal.
	state forkState
}

// forkState is where a fork is in its life on its worker.
type forkState uint8

const (
	// forkIdle: no join is using the frame.
	forkIdle forkState = iota
	// forkPrivate: registered, not published; only the owner can run it.
	forkPrivate
	// forkPublished: on the owner's deque (or taken from it by a thief).
	forkPublished
	// forkInline: the owner runs the second half itself, or has run it.
	forkInline
)

// Init points f's job at r, the frame that embeds f, whose RunJob a thief
// calls, and prepares f's latch for worker w.
func (f *Fork) Init(w *Worker, r Runner) {
	f.job.Init(r)
	f.latch.Init(w.pool.sleep, w.index)
	f.state = forkIdle
}

// Done marks a published fork's second half as finished. A thief calls it
// after it ran the half and stored its results in the frame; the owner may
// reuse the frame the instant Done returns.
func (f *Fork) Done() { f.latch.Set() }

// InUse reports whether a join is using f: between Worker.Fork and
// Worker.Unfork. Join frames use it in their deferred guard to tell the
// normal path (the join has already left) from a panic.
func (f *Fork) InUse() bool { return f.state != forkIdle }

// RanInline reports whether the owner ran (or is running) the second half
// itself. Join frames use it on the panic path to tell whether a panic
// came from the second half.
func (f *Fork) RanInline() bool { return f.state == forkInline }

// Fork registers f, the fork of the frame at the current depth (entered
// with EnterFrame), as private to w. It is the whole cost of a fork in the
// common case: a store, and a countdown to the next heartbeat check.
func (w *Worker) Fork(f *Fork) {
	f.state = forkPrivate
	w.beat--
	if w.beat <= 0 {
		w.heartbeat()
	}
}

// maxAhead bounds the frames a worker keeps above its heartbeat scan's
// start (w.oldest): private forks, and frames whose second half the
// owner runs inline. A join beyond it runs as two plain calls (see
// Direct).
const maxAhead = 8

// Direct reports whether a join here should run its two halves as plain
// calls, with no frame and no fork. It is true while w already keeps
// maxAhead frames above the heartbeat scan's start, and no heartbeat
// check is due. A heartbeat publishes the oldest private fork first, so a
// fork made this deep would be published only after all of those, each
// holding more work than it: while they last, a thief is better fed from
// them, and recording it would cost every join of a deep recursion its
// frame for nothing. Once a heartbeat has moved the scan's start past
// them (published them, or found no private fork left, which only
// happens while some worker is idle), joins here make forks again.
//
// While no worker is idle, that is all: one load of w's gate (gate.go).
// Otherwise the call counts toward the heartbeat (directCounted).
func (w *Worker) Direct() bool {
	return atomic.LoadUint32(&w.gate) == 0 || w.directCounted()
}

// directCounted is Direct while w's gate is set: w is shallow, or some
// worker is idle, or asked for work. The call counts toward the
// heartbeat, so a worker deep in direct calls still publishes its older
// forks when another worker is idle. A request (gateWanted) does not make
// the check due at once: idle workers ask at every round of their
// search, and a check at every join they ask at would make a fork at
// every join and hand them pieces too small to pay for their move; the
// countdown paces the checks (every checkPeriod or so), as it did before
// there was a gate.
//
// The join that is due for a check makes a fork, though, and the check
// runs in Fork: so a check always has a private fork to give, this one if
// the frames above the scan's start all run their second halves inline.
// Were the check made on a plain call, it would find nothing in such a
// stack (a right-leaning recursion: a leaf, then the rest), move the
// scan's start up, and the few forks made after it would all be back
// inline before the next check, again on a plain call: an idle worker
// would never be fed for the rest of the recursion.
//
//go:noinline
func (w *Worker) directCounted() bool {
	if w.depth-w.oldest >= maxAhead && w.beat > 1 {
		w.beat--
		return true
	}
	return false
}

// Reclaim is called by f's owner once the first half has returned. It
// reports true if the owner must now run the second half itself (f was
// never published, or was popped back before any thief took it), and
// false once a thief has run it and called Done.
func (w *Worker) Reclaim(f *Fork) bool {
	if f.state == forkPrivate {
		f.state = forkInline
		return true
	}
	return w.reclaimPublished(f)
}

// Unfork ends the join that registered f: the frame is free for the next
// join at this depth. Call it after Reclaim and the second half are done,
// on the normal path and the panic path alike.
func (w *Worker) Unfork(f *Fork) {
	f.state = forkIdle
	w.depth--
	// Only here can the depth drop below the heartbeat scan's start, and
	// the next private fork will sit at the new depth: keep the start at
	// or below it, so that no private fork is ever below it.
	w.oldest = min(w.oldest, w.depth)
	w.regate()
}

// reclaimPublished is Reclaim for a fork that a heartbeat published. It
// pops the fork back if no thief took it; otherwise it runs other jobs, or
// sleeps, until the thief sets the latch.
func (w *Worker) reclaimPublished(f *Fork) bool {
	for !f.latch.Probe() {
		switch j := w.Pop(); j {
		case &f.job:
			f.state = forkInline
			return true
		case nil:
			// A thief has it. Jobs are stolen oldest first, and forks are
			// published oldest first, so everything older than ours is
			// gone too: our deque is empty.
			w.WaitUntil(&f.latch)
			f.latch.Reset() // owner-only, after Probe saw it set
			return false
		default:
			// Newer work left on our deque (a scope spawn): run it.
			w.Execute(j)
		}
	}
	f.latch.Reset()
	return false
}

// frameSlot is one depth of a worker's frame stack.
type frameSlot struct {
	frame any   // the frame cached for this depth (join's typed frame)
	fork  *Fork // frame's Fork, for the heartbeat's scan; nil if none
}

// EnterFrame enters the next nesting depth of fork-join calls on w and
// returns the frame cached for that depth by CacheFrame, or nil. Every
// EnterFrame must be paired with an Unfork. Fork-join calls on one worker
// nest like a stack (a worker runs other jobs only inside a wait, on top
// of the waiting frame), so the frame cached at a depth is free whenever
// that depth is entered again. This is why a join allocates nothing of
// its own in steady state.
func (w *Worker) EnterFrame() any {
	if w.depth == len(w.frames) {
		w.growFrames()
	}
	f := w.frames[w.depth].frame
	w.depth++
	w.regate()
	return f
}

func (w *Worker) growFrames() { w.frames = append(w.frames, frameSlot{}) }

// CacheFrame keeps frame, whose Fork is f, as the frame of the current
// depth, for the next EnterFrame that reaches this depth.
func (w *Worker) CacheFrame(frame any, f *Fork) {
	w.frames[w.depth-1] = frameSlot{frame: frame, fork: f}
}

// publishOldest moves w's oldest private fork onto its deque and reports
// whether there was one. Forks are published oldest first, so at any time
// the published forks of the frame stack lie below its private ones; a
// thief that steals from the top takes the biggest piece of work, and the
// owner's pop at the end of a published join finds its own fork or an
// empty deque.
func (w *Worker) publishOldest() bool {
	for i := w.oldest; i < w.depth; i++ {
		f := w.frames[i].fork
		if f == nil || f.state != forkPrivate {
			continue
		}
		f.state = forkPublished
		w.oldest = i + 1
		w.regate()
		w.published.Add(1)
		w.Push(&f.job)
		return true
	}
	w.oldest = w.depth
	w.regate()
	return false
}

// publishAll publishes every private fork of w. A worker calls it before
// it waits (WaitUntil), since a waiting worker cannot run its private
// forks itself: after it, every fork the worker holds is one a thief can
// take, exactly as if each had been pushed when it was made.
func (w *Worker) publishAll() {
	for w.oldest < w.depth && w.publishOldest() {
	}
}
