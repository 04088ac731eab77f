package sleep

import (
	"runtime"
	"sync/atomic"
)

// Quiet reports whether posting a job needs no action: no worker is
// sleepy or asleep. It is NewJobs's fast path, one atomic load, for
// callers that would have to do work (such as reading a contended queue
// index) just to compute NewJobs's arguments.
func (s *Sleep) Quiet() bool {
	c := s.counters.load()
	return !c.jec().sleepy() && c.sleeping() == 0
}

// NewJobs tells the sleep state that n jobs were just made visible, in a
// worker's deque or in the injector. queueWasEmpty says whether that queue
// held nothing before: jobs in a non-empty queue are evidence that the
// awake idle workers are already busy, so each one wakes a sleeper.
//
// Call it after the jobs are visible to thieves. In steady state (no worker
// sleepy or asleep) it is one atomic load. It returns how many sleepers it
// woke (see Handoff for what a caller that goes on running should do then).
func (s *Sleep) NewJobs(n int, queueWasEmpty bool) (woken int) {
	if s.Quiet() {
		return 0
	}
	return s.newJobsSlow(n, queueWasEmpty)
}

func (s *Sleep) newJobsSlow(n int, queueWasEmpty bool) int {
	// Bumping an even JEC makes every sleepy worker's tryAddSleeping fail,
	// so a worker that announced sleepiness before our jobs were visible
	// searches again instead of sleeping; one that announces after will
	// see the jobs in its last search.
	c := s.counters.postJobs()
	sleepers := c.sleeping()
	if sleepers == 0 {
		return 0
	}
	if !queueWasEmpty {
		return s.wakeAny(min(n, sleepers))
	}
	if idle := c.awakeButIdle(); idle < n {
		return s.wakeAny(min(n-idle, sleepers))
	}
	return 0
}

// WakeWorker wakes worker i if it is blocked; it implements latch.Waker.
// A latch set calls it only when the latch's owner reached Sleeping on that
// latch, so it wakes exactly the owner. The setter is nearly always a
// worker that goes on searching, so it hands its processor over (Handoff).
func (s *Sleep) WakeWorker(i int) {
	if s.wake(i) {
		Handoff()
	}
}

// Handoff lets a goroutine that just woke a worker and goes on running
// give its processor to the woken worker. Call it after NewJobs reports a
// wake, from a goroutine that will not block soon.
//
// Go's scheduler puts a goroutine readied by a condition variable in the
// waker's run-next slot. While the waker runs on, an idle processor can
// take the woken goroutine from that slot only after a 3 µs sleep, which
// the kernel's timer slack stretches to 50-100 µs: a woken worker started
// 100 µs late (measured: a second worker joined a fresh recursion 104-112
// µs after it started, and 10-25 µs with the handoff). Yielding runs the
// woken worker at once on our processor; the waker goes to the global run
// queue, where the idle processor that the wake-up started finds it
// without that sleep.
//
// While the waker waits there for a processor, it is counted in
// handingOff, so that a worker in its busy spin (which would keep its
// processor from the waker for the whole spin) yields it instead.
func Handoff() {
	handingOff.Add(1)
	runtime.Gosched()
	handingOff.Add(-1)
}

// handingOff counts the goroutines in Handoff's yield, in every pool. The
// count is a hint for the busy spin only (see NoWorkFound): a stale value
// costs one yield too many or a spin round too long, nothing else.
var handingOff atomic.Int32

// WakeAll wakes every blocked worker, for example so that they see that the
// pool is terminating; the caller makes that condition visible first.
//
// Like NewJobs it first makes an even JEC odd (postJobs, an SC CAS on the
// counters word). Waking the blocked workers alone would miss a worker
// that announced sleepiness and then checked the condition, but has not
// registered as sleeping yet: it is not blocked, and its registration CAS
// would still find the JEC it saw. With the bump, such a worker's CAS
// comes after it and fails, and it looks again; a worker whose CAS came
// before it is counted sleeping and blocked under its mutex, where wake
// finds it; one that announces after it looks at the condition before it
// next tries to sleep.
func (s *Sleep) WakeAll() {
	s.counters.postJobs()
	s.wakeAny(len(s.workers))
}

// wakeAny wakes up to n blocked workers, lowest index first, and returns
// how many it woke.
func (s *Sleep) wakeAny(n int) (woken int) {
	for i := 0; i < len(s.workers) && woken < n; i++ {
		if s.wake(i) {
			woken++
		}
	}
	return woken
}

// wake wakes worker i if it is blocked and reports whether it was.
func (s *Sleep) wake(i int) bool {
	w := &s.workers[i]
	w.mu.Lock()
	woke := w.blocked
	if woke {
		w.blocked = false
		w.stats.Wakeups++
		s.counters.subSleeping()
	}
	w.mu.Unlock()
	// Signal after Unlock, so the woken worker does not go straight from
	// the condition variable into a wait for the mutex we still hold. It
	// cannot miss the signal: it registered with cond (inside Wait)
	// before it released mu, and we cleared blocked only after taking mu.
	if woke {
		w.cond.Signal()
	}
	return woke
}

// NewJobFor tells the sleep state that a job was made visible that only
// worker i may run (a broadcast part in its mailbox), and wakes i if it
// sleeps. The JEC bump makes a sleepy i search again; a sleeping i is
// woken directly, since waking "any" worker might pick another one.
func (s *Sleep) NewJobFor(i int) {
	s.counters.postJobs()
	s.wake(i)
}
