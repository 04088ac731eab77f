package core

import "sync/atomic"

// The gate is what a join deep in a recursion reads first (Direct, and
// join.Plain through it): one atomic load of a word that is zero while
// nothing needs the worker's attention. Zero means the worker is past
// the forks it keeps (maxAhead frames above the heartbeat scan's start)
// and no other worker was idle at its last heartbeat check: no idle
// worker to feed, so no countdown to keep, and the join runs as plain
// calls for the cost of that load. Anything else sends the join down the
// counted path (directCounted), which is the heartbeat design of
// heartbeat.go: count down, and fork when a check is due.
//
// Two parties set bits:
//
//   - the owner sets gateOwner while it must count: its joins are still
//     among the forks it keeps (shallow), or its last check saw an idle
//     worker (counting); it clears it when neither holds (regate);
//   - an idle worker that found no job sets gateWanted on every other
//     worker (askForForks), and the owner clears it at its next check.
//
// No request is lost. A thief counts itself idle (sleep.StartLooking, an
// SC add on the sleep counters) before it sets gateWanted (an SC Or); the
// owner clears gateWanted (an SC And) before it loads the counters (SC).
// In the one total order of these operations, either the owner's load
// comes after the thief's add, so the owner sees an idle worker and keeps
// gateOwner set (it counts, and checks again), or it comes before it, so
// the thief's Or comes after the owner's And and the bit stays set until
// the owner's next check. A thief that finds gateWanted already set and
// skips its Or loaded the bit after its add, so the And that clears that
// bit, and the owner's load after it, come after the add too. The owner
// flips gateOwner with an And or an Or on that bit alone, never a store
// of the word, which could wipe a request set meanwhile.
// docs/models/gate.pml checks this, with a mutant for each of the three
// rules.
const (
	gateOwner  uint32 = 1 << 0
	gateWanted uint32 = 1 << 1
)

// regate sets or clears gateOwner to match w's state. Owner-only; the
// owner's copy (gated) saves the atomic operation when nothing changed,
// which is nearly always.
func (w *Worker) regate() {
	must := w.counting || w.depth-w.oldest < maxAhead
	if must == w.gated {
		return
	}
	w.gated = must
	if must {
		atomic.OrUint32(&w.gate, gateOwner)
	} else {
		atomic.AndUint32(&w.gate, ^gateOwner)
	}
}

// takeRequests clears gateWanted, before the heartbeat check that answers
// it loads the sleep counters (see the ordering argument above).
func (w *Worker) takeRequests() {
	if atomic.LoadUint32(&w.gate)&gateWanted != 0 {
		atomic.AndUint32(&w.gate, ^gateWanted)
	}
}

// askForForks is called by an idle worker, counted idle, that found no
// job: it asks every other worker to look at its heartbeat at its next
// join. A bit already set is left alone, so that a thief spinning through
// its search does not write the cache line of a busy worker's gate again
// and again.
func (w *Worker) askForForks() {
	for _, v := range w.pool.workers {
		if v != w && atomic.LoadUint32(&v.gate)&gateWanted == 0 {
			atomic.OrUint32(&v.gate, gateWanted)
		}
	}
}

// Asked reports whether another worker asked w for work since w's last
// heartbeat check (the gate's request bit), and if so, whether some idle
// worker is awake now, searching, rather than asleep. It is for a long
// stretch of work with no join in it, a loop's chunk: the chunk asks
// between its pieces and, when it is worth it, forks what it has left
// (after CheckNextFork), so that an idle worker is fed before the chunk's
// end. A searching worker takes the fork at once; one that asked and then
// fell asleep costs a wake-up, tens of microseconds, which only a large
// rest is worth.
//
// Owner-only. Both loads are hints and need no ordering: a request Asked
// misses is still set at the next call, and the heartbeat check, not
// Asked, clears it (takeRequests), so none is lost.
func (w *Worker) Asked() (asked, awake bool) {
	if atomic.LoadUint32(&w.gate)&gateWanted == 0 {
		return false, false
	}
	inactive, sleeping := w.pool.sleep.Counts()
	return true, inactive > sleeping
}

// CheckNextFork makes w's next fork run the heartbeat check, whatever the
// countdown says: that check publishes the fork (or an older one) under
// the heartbeat's rules, and answers a request. Owner-only.
func (w *Worker) CheckNextFork() { w.beat = 1 }
