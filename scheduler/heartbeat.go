package scheduler

import "time"

// DefaultHeartbeat is the default for WithHeartbeat.
const DefaultHeartbeat = 100 * time.Microsecond

// The heartbeat check is Fork's slow path. It reads the clock, so it must
// not run on every fork: a fine-grained recursion forks every few
// nanoseconds and a clock read costs about twenty. Each worker therefore
// counts forks down from an adaptive budget (every) and checks when the
// count runs out, doubling the budget while checks come sooner than
// checkPeriod and halving it while they come later. Fine-grained work
// settles at one check per several hundred forks (well under a
// nanosecond per fork); coarse work (a fork every few microseconds)
// checks at every fork, which costs nothing next to its grain.
const (
	// checkPeriod is the target time between two heartbeat checks of a
	// busy worker: short enough that a worker searching for work (which
	// gives up and sleeps after a few microseconds) is usually served
	// before it sleeps, long enough that the check's cost stays far below
	// 1% of the work.
	checkPeriod = 4 * time.Microsecond
	// maxEvery caps the budget, so that a worker whose forks suddenly
	// become coarse notices within a bounded number of forks.
	maxEvery = 1024
)

// heartbeat is the slow path of Fork. It decides whether w publishes its
// oldest private fork:
//
//   - no other worker is idle: no. Publishing costs a deque push and a
//     later pop and would feed nobody.
//   - some worker is awake and searching: yes, at once, unless w's deque
//     still holds a fork nobody has taken. This is what serves the top
//     levels of a recursion quickly when the pool has idle workers.
//   - the idle workers are all asleep: yes, if a heartbeat interval has
//     passed since w last published; the push wakes one sleeper through
//     the sleep protocol. The interval bounds how often a busy worker can
//     wake a sleeper for a piece of work that turns out to be too small.
//
// An idle pool runs no heartbeat at all: it is driven by forks, and a
// worker that does not fork does not check.
func (w *Worker) heartbeat() {
	now := w.pool.now()
	w.adapt(now)
	if w.oldest >= w.depth {
		return // no private fork
	}
	inactive, sleeping := w.pool.sleep.Counts()
	switch {
	case inactive == 0:
		return
	case inactive > sleeping:
	case now-w.lastPublish >= w.pool.heartbeat:
	default:
		return
	}
	if !w.deque.IsEmpty() {
		return // an earlier publication is still there for the taking
	}
	if w.publishOldest() {
		w.lastPublish = now
	}
}

// adapt sets the fork budget until the next check from how long the
// budget just spent took.
func (w *Worker) adapt(now int64) {
	dt := now - w.lastCheck
	w.lastCheck = now
	switch {
	case dt < int64(checkPeriod/2) && w.every < maxEvery:
		w.every *= 2
	case dt > int64(2*checkPeriod) && w.every > 1:
		w.every /= 2
	}
	w.beat = w.every
}

// now returns the time since the pool started, in nanoseconds, on the
// monotonic clock.
func (p *Pool) now() int64 { return int64(time.Since(p.epoch)) }
