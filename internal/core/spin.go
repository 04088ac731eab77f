package core

// An idle worker spins for a while beside a busy one before it sleeps
// (sleep.Tunables.BusySpin), so that the busy worker's next fork finds it
// awake rather than costing a wake-up. The spin pays only where a fork is
// coming, and the pool says where: while some worker runs a parallel loop
// that splits (EnterLoop to LeaveLoop). A loop's last chunk leaves its
// other workers idle while its owner finishes, and the next loop run back
// to back forks again a few microseconds later; a job service's handler
// that does not fork would only burn the spin's length on every job.
// Recursions (join) take no part: their forks come every few
// microseconds until their last levels, and the spin did not move their
// benchmarks (docs/sleep.md).

// EnterLoop tells idle workers that w runs a parallel loop that splits,
// until the matching LeaveLoop: one that runs out of work meanwhile spins
// before it sleeps. Loops nest. Owner-only.
func (w *Worker) EnterLoop() {
	if w.loops++; w.loops == 1 {
		w.looping.Store(true)
	}
}

// LeaveLoop ends the loop that the matching EnterLoop began. Owner-only.
func (w *Worker) LeaveLoop() {
	if w.loops--; w.loops == 0 {
		w.looping.Store(false)
	}
}

// Looping reports whether w's owner is inside a splitting loop
// (EnterLoop to LeaveLoop), as idle workers see it.
func (w *Worker) Looping() bool { return w.looping.Load() }

// anyLooping reports whether some worker runs a splitting loop: the
// pool's hint for the busy spin (sleep.Sleep.SpinWhile). Each flag is
// written by its owner only when its loop count leaves or reaches zero,
// and read here by an idle worker as it runs out of work and as its spin
// would start (sleep.Sleep.StartLooking); a stale read starts a
// spin too many or one too few, and nothing the sleep protocol guarantees
// rests on it (the spin only adds search rounds before a worker
// announces itself sleepy).
func (p *Pool) anyLooping() bool {
	for _, w := range p.workers {
		if w.looping.Load() {
			return true
		}
	}
	return false
}
