package core

import "time"

// The heartbeat check is Fork's slow path. It must not run on every fork:
// a fine-grained recursion forks every few nanoseconds. Each worker
// therefore counts forks down from an adaptive budget (every) and checks
// when the count runs out, doubling the budget while checks come sooner
// than checkPeriod and halving it while they come later. A check loads the
// sleep counters (one atomic load of a word that changes only when a
// worker goes idle, sleeps or wakes); only every clockEvery-th check also
// reads the clock (about 20 ns), to adapt the budget and to time the
// heartbeat interval. Fine-grained work settles at one check per hundred
// or so forks (a fraction of a nanosecond per fork); coarse work (a fork
// every few microseconds) checks at every fork, which costs nothing next
// to its grain.
const (
	// checkPeriod is the target time between two checks of a busy
	// worker. A worker that runs out of work searches for a few
	// microseconds before it sleeps; checking several times in that
	// window serves it before it sleeps, and a sleeping worker costs a
	// wake-up (tens of microseconds) to bring back.
	checkPeriod = 500 * time.Nanosecond
	// clockEvery is how many checks share one clock read.
	clockEvery = 8
	// coarseGap is the time between two forks from which a private fork
	// is worth waking a sleeper for at once, whatever the heartbeat
	// interval: a wake-up costs a few microseconds on each side, and in a
	// recursion the fork left behind holds about as much work as went by
	// since the last one. Without it, a worker in a long leaf (a 5 ms
	// sort of 64K elements) keeps its sibling leaf private while others
	// sleep, because it published less than an interval ago.
	coarseGap = 20 * time.Microsecond
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
	w.beat = w.every
	if w.checks++; w.checks >= clockEvery {
		w.checks = 0
		w.adapt(w.pool.now())
	}
	w.takeRequests() // before the counters: see gate.go
	inactive, sleeping := w.pool.sleep.Counts()
	w.counting = inactive > 0
	w.regate()
	wakeNow := w.wakeNow
	w.wakeNow = false
	if w.oldest >= w.depth {
		return // no private fork
	}
	now := w.lastCheck
	switch {
	case inactive == 0:
		return
	case inactive > sleeping:
	case wakeNow:
		now = w.pool.now()
	default:
		var ok bool
		if now, ok = w.mayWakeSleeper(); !ok {
			return
		}
	}
	if !w.deque.IsEmpty() {
		return // an earlier publication is still there for the taking
	}
	if w.publishOldest() {
		w.lastPublish = now
	}
}

// ShareSoon tells w, about to fork, that the forks to come hold work in
// all, as far as the caller knows (a loop's probe does). If that is a
// heartbeat interval or more, the next fork checks at once, and may wake
// a sleeper for its work whatever the interval since w last published.
// The interval rations wake-ups to one per interval of w's work, lest a
// worker wake sleepers for pieces too small to pay for the wake-up; a
// caller that knows its work is that large keeps within the ration, and
// its sleeper is woken at the start of the work, not up to an interval
// into it. On the 2-vCPU VM a woken worker runs 20 µs to over 100 µs
// after its wake-up. Owner-only.
func (w *Worker) ShareSoon(work time.Duration) {
	if int64(work) >= w.pool.heartbeat {
		w.beat = 1
		w.wakeNow = true
	}
}

// mayWakeSleeper decides, when every idle worker sleeps, whether w may
// publish a fork now, which wakes one of them; now is the time to record
// as the publication's. A fork may wake a sleeper once a heartbeat
// interval has passed since w last published, or at once if it is coarse:
// coarseGap or more since w last looked.
func (w *Worker) mayWakeSleeper() (now int64, ok bool) {
	now = w.lastCheck
	if w.every == 1 {
		// Coarse forks: lastCheck can be clockEvery forks old, which may
		// be many heartbeat intervals, and would hold sleepers off that
		// long. Next to such a fork a clock read is free.
		now = w.pool.now()
		gap := now - w.lastLook
		w.lastLook = now
		if gap >= int64(coarseGap) {
			return now, true
		}
	}
	return now, now-w.lastPublish >= w.pool.heartbeat
}

// adapt sets the fork budget from how long the last clockEvery checks
// took, and records now as the time of the latest check.
//
// The budget grows by doubling but shrinks in one step, in proportion to
// how late the checks came. The asymmetry is deliberate: a budget too
// small costs a few wasted loads, one too large starves idle workers. A
// worker whose forks turn coarse (a loop's leaves after a fine-grained
// phase, or a job started long after the last check) would otherwise
// need several rounds of clockEvery checks, each as many forks as the
// stale budget, before it checked often enough to share work: with a
// budget of a few hundred forks and leaves of tens of microseconds, that
// is milliseconds in which no idle worker is served.
func (w *Worker) adapt(now int64) {
	const target = int64(clockEvery * checkPeriod)
	dt := now - w.lastCheck
	w.lastCheck = now
	switch {
	case dt < target/2 && w.every < maxEvery:
		w.every *= 2
	case dt > 2*target && w.every > 1:
		w.every = int32(max(1, int64(w.every)*target/dt))
	}
	w.beat = w.every
}

// startJob prepares the heartbeat for a job taken from a queue: it may be
// the root of a recursion while other workers wait, so its first fork
// checks at once, and reads the clock. As the previous check is usually
// long past by then, that first check also cuts the budget to one fork
// (see adapt): the new job's grain is learnt afresh, not inherited.
func (w *Worker) startJob() {
	w.beat = 1
	w.checks = clockEvery - 1
}
