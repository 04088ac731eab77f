package sleep

import (
	"errors"
	"fmt"
	"sync"
	"time"

	"golang.org/x/sys/cpu"
)

// ErrWorkerCount reports a worker count that Sleep cannot track.
var ErrWorkerCount = errors.New("weft/sleep: worker count out of range")

// ErrTunables reports a Tunables value outside its documented range.
var ErrTunables = errors.New("weft/sleep: tunable out of range")

// DefaultSearchRounds is the default for Tunables.SearchRounds.
const DefaultSearchRounds = 16

// MaxSearchRounds is the most search rounds Tunables.SearchRounds may ask
// for. A round is a pause of about 100ns plus a sweep of the other
// workers' deques, so this bound keeps an idle worker's spin to a
// millisecond or so on a small pool: past that, sleeping and being woken
// is cheaper than spinning, and a value like math.MaxInt would keep an
// idle worker on a core for good.
const MaxSearchRounds = 4096

// Tunables set how long an idle worker searches before it sleeps.
type Tunables struct {
	// SearchRounds is how many fruitless search rounds a worker makes,
	// pausing briefly after each, before it announces it is sleepy (or
	// spins on, see BusySpin); it then searches once more and sleeps.
	// Zero means DefaultSearchRounds; a negative value means none; more
	// than MaxSearchRounds is refused by New.
	//
	// Each round costs one pass over the other workers' deques and the
	// injector. More rounds catch bursts sooner; fewer rounds burn less
	// CPU when jobs trickle in (Rayon's 32 rounds with an OS yield each
	// cost 170-240us of CPU per wakeup at one job per millisecond).
	SearchRounds int
	// BusySpin is how long a worker goes on searching after its SearchRounds
	// while another worker of the pool is busy and, where the pool gives a
	// hint (SpinWhile), if the hint held when the worker ran out of work or
	// holds when the spin would start; zero means DefaultBusySpin, a
	// negative value not at all. A busy worker hands a searching worker a
	// fork at its next heartbeat check, within microseconds, but a sleeping
	// one only with a wake-up, which costs tens of microseconds and is
	// rationed to one per heartbeat interval. A program that runs parallel
	// loops of a few hundred microseconds back to back from inside a task
	// loses much of its second worker to those wake-ups, and gains from a
	// spin of about a wake-up's cost. A pool with no busy worker has no fork
	// to come, so its idle workers do not spin for one; nor, in a weft pool,
	// do they beside a busy worker that runs no parallel loop (a job
	// service's handler), which would cost every job the spin's length. See
	// docs/sleep.md. More than MaxBusySpin is refused by New.
	BusySpin time.Duration
}

// MaxBusySpin is the longest Tunables.BusySpin that New accepts.
const MaxBusySpin = time.Millisecond

// DefaultBusySpin is the busy spin of Tunables.BusySpin zero: about what
// a wake-up costs on a small VM.
const DefaultBusySpin = 25 * time.Microsecond

func (t Tunables) busySpin() time.Duration {
	if t.BusySpin == 0 {
		return DefaultBusySpin
	}
	return max(t.BusySpin, 0)
}

func (t Tunables) rounds() int {
	switch {
	case t.SearchRounds == 0:
		return DefaultSearchRounds
	case t.SearchRounds < 0:
		return 0
	}
	return t.SearchRounds
}

// Sleep coordinates the idle workers of one pool: it decides when a worker
// may sleep, puts it to sleep without losing a wakeup, and wakes as few
// workers as new work needs. It implements latch.Waker.
type Sleep struct {
	_        cpu.CacheLinePad
	counters counters
	_        cpu.CacheLinePad
	workers  []worker
	rounds   int
	busySpin time.Duration
	// spinWhile, if set (SpinWhile), must hold for a busy spin to start.
	spinWhile func() bool
	// now reads a monotonic clock for the busy spin; tests replace it.
	now func() time.Duration
}

// SpinWhile makes the busy spin (Tunables.BusySpin) start only where hint
// reports true, besides its other conditions: a pool passes a hint that a
// fork is likely to come (weft's: a worker runs a parallel loop that
// splits). hint is called from the worker as it runs out of work and, if
// it said no then, again as the spin would start; the spin starts if
// either said yes. It must be cheap and safe to call concurrently. Call
// SpinWhile before any worker searches.
func (s *Sleep) SpinWhile(hint func() bool) { s.spinWhile = hint }

// epoch is the origin of the default clock's readings.
var epoch = time.Now()

func sinceEpoch() time.Duration { return time.Since(epoch) }

// worker is one worker's sleep state, on its own cache lines so that waking
// one worker does not disturb another's.
type worker struct {
	mu   sync.Mutex
	cond sync.Cond // cond.L == &mu
	// blocked is true while the worker waits on cond. Only the worker sets
	// it, and only a waker clears it, both under mu; the waker that clears
	// it also takes the worker out of the sleeping count, so each sleep is
	// uncounted exactly once.
	blocked bool
	stats   Stats // guarded by mu
	_       cpu.CacheLinePad
}

// Stats counts one worker's trips into and out of sleep.
type Stats struct {
	Sleeps  uint64 // times the worker blocked on its condition variable
	Wakeups uint64 // times a waker cleared its blocked flag
}

// New returns the sleep state of a pool of n workers, numbered 0..n-1. It
// fails with ErrWorkerCount unless 1 <= n <= MaxWorkers, and with
// ErrTunables if t.SearchRounds exceeds MaxSearchRounds or t.BusySpin
// exceeds MaxBusySpin.
func New(n int, t Tunables) (*Sleep, error) {
	if n <= 0 || n > MaxWorkers {
		return nil, fmt.Errorf("%w: %d (want 1..%d)", ErrWorkerCount, n, MaxWorkers)
	}
	if t.SearchRounds > MaxSearchRounds {
		return nil, fmt.Errorf("%w: SearchRounds %d (want at most %d)", ErrTunables, t.SearchRounds, MaxSearchRounds)
	}
	if t.BusySpin > MaxBusySpin {
		return nil, fmt.Errorf("%w: BusySpin %v (want at most %v)", ErrTunables, t.BusySpin, MaxBusySpin)
	}
	s := &Sleep{workers: make([]worker, n), rounds: t.rounds(), busySpin: t.busySpin(), now: sinceEpoch}
	for i := range s.workers {
		s.workers[i].cond.L = &s.workers[i].mu
	}
	return s, nil
}

// Workers returns the number of workers.
func (s *Sleep) Workers() int { return len(s.workers) }

// Counts returns how many workers are inactive (searching or sleeping) and
// how many of those are sleeping, as of one atomic read.
func (s *Sleep) Counts() (inactive, sleeping int) {
	c := s.counters.load()
	return c.inactive(), c.sleeping()
}

// WorkerStats returns worker i's sleep statistics.
func (s *Sleep) WorkerStats(i int) Stats {
	w := &s.workers[i]
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.stats
}
