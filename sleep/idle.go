package sleep

import (
	"context"
	"runtime/trace"
	"sync/atomic"
	"time"

	"github.com/weftrt/weft/latch"
)

// Idle is one worker's progress toward sleep while it finds no work. The
// worker gets it from StartLooking and passes it to every NoWorkFound.
type Idle struct {
	worker int
	rounds int  // fruitless rounds so far
	jec    jec  // the JEC this worker saw when it got sleepy
	sleepy bool // announced: the next search is the last before sleeping
	// spun: the busy spin (keepSpinning) has begun; it ends at spinEnd,
	// or after MaxSearchRounds rounds (spins counts them).
	spun    bool
	spinEnd time.Duration
	spins   int
	// hinted: the pool's hint (SpinWhile) held when the search began.
	hinted bool
}

// Final reports whether the worker's next search is its last before it
// sleeps. That search must look at every queue (the protocol's guarantee
// that no job is left behind rests on it); earlier ones may sample.
func (i *Idle) Final() bool { return i.sleepy }

// StartLooking counts worker as inactive and starts its search. It reads
// the pool's hint (SpinWhile) here too, as the worker runs out of work: a
// loop's last chunk leaves a worker idle while its owner, still inside the
// loop, finishes; by the time that worker's search would spin, the owner
// may have left this loop for the next one, which forks a few
// microseconds later, and the hint, read then alone, would miss it.
func (s *Sleep) StartLooking(worker int) Idle {
	s.counters.addInactive()
	return Idle{worker: worker, hinted: s.spinWhile != nil && s.spinWhile()}
}

// WorkFound ends a search that StartLooking began: the worker found a job,
// or the latch it waited on was set.
//
// It reports whether the caller was the last awake idle worker while others
// sleep. NewJobs wakes no sleeper for a job when it counts enough awake idle
// workers, relying on them to find it; but a worker counted idle may leave
// without having seen that job, because its search had already returned
// another one, or because its latch was set. When the last such worker
// leaves, nobody is searching any more, so when WorkFound reports true the
// caller must look for jobs left in the queues (every deque and the
// injector) and, if it finds any, call NewJobs(1, false) to wake a sleeper
// for them. The Add below and the queue loads that follow it are SC, so
// either a poster's load of the counters sees this worker gone (and wakes a
// sleeper itself) or the caller's look sees the poster's job.
func (s *Sleep) WorkFound() (lookAgain bool) {
	c := s.counters.subInactive()
	return c.sleeping() > 0 && c.awakeButIdle() == 0
}

// NoWorkFound is called after each fruitless search round. It yields for
// the first SearchRounds rounds, and then for as long as the busy spin
// lasts (Tunables.BusySpin), then announces the worker sleepy, and on the
// round after that puts it to sleep until a job is posted, l is set, or
// WakeAll is called. It returns without sleeping if l is set.
func (s *Sleep) NoWorkFound(idle *Idle, l *latch.Core) {
	switch {
	case idle.rounds < s.rounds && !s.crowded():
		idle.rounds++
		pause()
	case idle.rounds == s.rounds && s.keepSpinning(idle):
		spinWait(busySpinHints)
	case idle.rounds <= s.rounds:
		idle.jec = s.counters.announceSleepy().jec()
		idle.rounds = s.rounds + 1
		idle.sleepy = true
		pause()
	default:
		s.sleep(idle, l)
	}
}

// keepSpinning reports whether a worker past its SearchRounds searches
// on: while another worker is busy, the search is not crowded, and no
// goroutine waits in Handoff for a processor (the spin would keep this
// one from it), for BusySpin from its first such round, if the pool's
// hint (SpinWhile) holds at that round. It reads the clock on each of those
// rounds only. A clock that does not move while the worker spins (a
// synctest bubble's, whose time stands still until every goroutine
// blocks) would keep it spinning for good, so MaxSearchRounds rounds end
// the spin too. A worker that stops spinning goes on to announce itself
// sleepy and does not spin again before it has slept. The hint counts if
// it held when the search began (StartLooking) or holds now.
func (s *Sleep) keepSpinning(idle *Idle) bool {
	if s.busySpin == 0 || idle.spun && idle.spinEnd == 0 {
		return false
	}
	if idle.spins++; idle.spins > MaxSearchRounds {
		return false
	}
	// The load is a hint, as crowded's is: a count already stale only
	// makes the spin start or stop a round early or late. Nothing the
	// protocol guarantees rests on it; that rests on the announcement and
	// the final search that follow the spin (docs/sleep.md).
	c := s.counters.load()
	if handingOff.Load() > 0 || c.inactive() >= len(s.workers) || c.awakeButIdle() > max(1, len(s.workers)/2) {
		return false // a waker waits for a processor, no busy worker, or crowded
	}
	now := s.now()
	if !idle.spun {
		if s.spinWhile != nil && !idle.hinted && !s.spinWhile() {
			idle.spun, idle.spinEnd = true, 0 // no spin before this worker sleeps
			return false
		}
		idle.spun, idle.spinEnd = true, now+s.busySpin
		return true
	}
	return now < idle.spinEnd
}

// crowded reports whether more than half the workers (at least one) are
// awake and searching. Go's runtime keeps at most half its Ps spinning for
// the same reason: beyond that, more searchers only add loads of the same
// contended queue indices and cost CPU, and the ones already searching
// will find a new job as soon as any one would. A worker that finds the
// search crowded skips the rest of its spinning and goes toward sleep
// (announce, one last full search, sleep), which the protocol allows at
// any round.
func (s *Sleep) crowded() bool {
	return s.counters.load().awakeButIdle() > max(1, len(s.workers)/2)
}

// pauseSpins is how many loads a pause between search rounds takes:
// roughly a hundred nanoseconds.
const pauseSpins = 32

// pauseWord is what pause loads; nothing writes it.
var pauseWord atomic.Uint32

// pause waits a little between fruitless search rounds without involving
// the Go scheduler. runtime.Gosched would be the obvious yield, but with
// an idle P it wakes another OS thread to look for goroutines (wakep), and
// on a pool with idle Ps that costs far more CPU than the round itself: it
// doubled the CPU per job of a pool fed one job per millisecond.
func pause() {
	for range pauseSpins {
		pauseWord.Load()
	}
}

// busySpinHints is how many spin-wait hints (spinWait) a round of the busy
// spin waits: 0.1 to 1.5 µs, as the hint costs 10 to 140 cycles on
// today's x86 cores (the spin itself is timed by the clock). The busy
// spin runs beside a busy worker, and on the 2-vCPU VM a spin of loads
// (pause) cost that worker 5% on a loop of a thousand cheap elements,
// which the hint did not.
const busySpinHints = 30

// testHookBeforeSleep, when set by a test, runs between a worker's last
// fruitless search and its attempt to sleep: the window in which a job
// posted without the JEC protocol would be lost. Only the slow path reads it.
var testHookBeforeSleep func()

// sleep blocks the worker unless a job was posted since it got sleepy or
// its latch is set. See docs/sleep.md for why no job can be missed.
func (s *Sleep) sleep(idle *Idle, l *latch.Core) {
	if testHookBeforeSleep != nil {
		testHookBeforeSleep()
	}
	if !l.GetSleepy() {
		return // set: the caller's next probe sees it
	}
	w := &s.workers[idle.worker]
	w.mu.Lock()
	// Sleeping is reached only under w.mu, so a setter that sees it waits
	// for the mutex and finds us blocked, or awake with blocked == false.
	if !l.FallAsleep() {
		w.mu.Unlock()
		*idle = Idle{worker: idle.worker}
		return
	}
	if !s.registerSleeping(idle.jec) {
		// A job was posted after we got sleepy: search again, and get
		// sleepy again straight after if that search fails.
		l.WakeUp()
		w.mu.Unlock()
		idle.rounds = s.rounds
		idle.spun, idle.spinEnd = true, 0 // no busy spin before sleeping
		return
	}
	w.blocked = true
	w.stats.Sleeps++
	var region *trace.Region
	if trace.IsEnabled() { // one load when tracing is off
		region = trace.StartRegion(context.Background(), "weft/sleep")
	}
	for w.blocked {
		w.cond.Wait()
	}
	if region != nil {
		region.End()
	}
	l.WakeUp()
	w.mu.Unlock()
	*idle = Idle{worker: idle.worker}
}

// registerSleeping counts the caller as sleeping if the JEC still equals
// seen, retrying while only worker counts change under it.
func (s *Sleep) registerSleeping(seen jec) bool {
	for {
		c := s.counters.load()
		if c.jec() != seen {
			return false
		}
		if s.counters.tryAddSleeping(c) {
			return true
		}
	}
}
