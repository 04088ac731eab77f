package latch

// Waker wakes a pool worker that sleeps on one of its latches. The sleep
// package's Sleep implements it; latch never sees the pool itself.
//
// WakeWorker must clear the worker's blocked flag under the worker's sleep
// mutex (it may signal after releasing it), and must do nothing if the
// worker is not blocked.
type Waker interface {
	WakeWorker(index int)
}

// Owned is the latch a pool worker waits on, for example for the second
// half of a join. It knows its owner so that Set wakes exactly that worker,
// and only when the worker sleeps on this latch.
//
// The zero value is unusable: call Init first. An Owned may be reused
// (Reset, or Init again) once its owner has seen it set.
type Owned struct {
	core Core
	// waker and owner are written by Init before the latch is published to
	// a setter, and read by Set before its swap; they are never written
	// while a setter may run, so they need no synchronization of their own.
	waker Waker
	owner int
}

// Init prepares l for the worker owner, woken through w, and leaves it unset.
func (l *Owned) Init(w Waker, owner int) {
	if w == nil {
		panic("weft/latch: Owned.Init with a nil Waker")
	}
	l.waker, l.owner = w, owner
	l.core.Reset()
}

// Core returns the core latch, which the owner hands to the sleep protocol.
func (l *Owned) Core() *Core { return &l.core }

// Owner returns the index of the worker that waits on l.
func (l *Owned) Owner() int { return l.owner }

// Probe reports whether l is set.
func (l *Owned) Probe() bool { return l.core.Probe() }

// Reset makes a set latch unset again; only the owner calls it.
func (l *Owned) Reset() { l.core.Reset() }

// Set sets l and wakes its owner if the owner sleeps on it. Everything the
// caller did before Set happens before the owner's Probe that sees it set.
func (l *Owned) Set() {
	// Read before the swap: once the swap is done the owner may return
	// and Init this latch for another job.
	w, owner := l.waker, l.owner
	if l.core.Set() {
		w.WakeWorker(owner)
	}
}
