package par

import (
	"context"
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/weftrt/weft/scheduler"
	"github.com/weftrt/weft/sleep"
)

// recorder is a loop kernel that records the ranges it is called with.
type recorder struct {
	mu     *sync.Mutex
	chunks *[][2]int
	start  int
	before func(w *scheduler.Worker) // runs before the chunk at start, if set
}

func (r recorder) chunk(w *scheduler.Worker, lo, hi int) none {
	if lo == r.start && r.before != nil {
		r.before(w)
	}
	r.mu.Lock()
	*r.chunks = append(*r.chunks, [2]int{lo, hi})
	r.mu.Unlock()
	return none{}
}

// runLeaf runs [0, n) as one leaf of step-long pieces on a worker of p,
// calling before with the first piece's worker before that piece runs,
// and returns the chunks the kernel saw, sorted.
func runLeaf(t *testing.T, p *scheduler.Pool, n, step int, before func(w *scheduler.Worker)) [][2]int {
	return runLeafClock(t, p, 0, n, step, before, nil)
}

// runLeafClock is runLeaf over [lo, lo+n), with the leaf reading clock
// (nil: the real one).
func runLeafClock(t *testing.T, p *scheduler.Pool, lo, n, step int, before func(w *scheduler.Worker),
	clock func() time.Duration) [][2]int {
	var mu sync.Mutex
	var chunks [][2]int
	err := p.Run(context.Background(), func(w *scheduler.Worker) error {
		k := recorder{&mu, &chunks, lo, before}
		l := &loop[recorder, none]{k: k, grain: n, step: step, minLen: 1, clock: clock, fork: split[recorder, none]}
		split(w, span[recorder, none]{l, lo, lo + n})
		return nil
	})
	require.NoError(t, err)
	slices.SortFunc(chunks, func(a, b [2]int) int { return a[0] - b[0] })
	return chunks
}

// untilTheOtherSearches returns once the pool's other worker is awake and
// looking for work: it then asks every worker for work at every round of
// its search (the gate's request bit). A worker asleep is woken with a
// task that does nothing. The caller makes no fork meanwhile.
func untilTheOtherSearches(p *scheduler.Pool) {
	for {
		s := p.Stats()
		switch {
		case s.Idle > s.Sleeping: // the caller is busy: the idle one is the other
			return
		case s.Sleeping > 0 && s.Pending == 1: // only the caller's task
			_ = p.Spawn(context.Background(), func(*scheduler.Worker) {})
		}
		runtime.Gosched()
	}
}

// untilTheOtherSleepsAfterAsking makes the pool's other worker run a task
// and go back to sleep, which it does only after searching, and asking
// every worker for work, at least once. The caller makes no fork
// meanwhile, so no heartbeat check of its answers the request, and the
// other worker stays asleep until a fork is published.
func untilTheOtherSleepsAfterAsking(t *testing.T, p *scheduler.Pool) {
	ran := make(chan struct{})
	require.NoError(t, p.Spawn(context.Background(), func(*scheduler.Worker) { close(ran) }))
	<-ran
	for s := p.Stats(); s.Sleeping < 1 || s.Pending > 1; s = p.Stats() {
		runtime.Gosched()
	}
}

// requireCover fails t unless chunks, sorted, cover [0, n) once each.
func requireCover(t *testing.T, chunks [][2]int, n int) {
	requireCoverFrom(t, chunks, 0, n)
}

// requireCoverFrom is requireCover for [lo, lo+n).
func requireCoverFrom(t *testing.T, chunks [][2]int, lo, n int) {
	next := lo
	for _, c := range chunks {
		require.Equal(t, next, c[0], "chunks %v", chunks)
		require.Less(t, c[0], c[1], "chunks %v", chunks)
		next = c[1]
	}
	require.Equal(t, lo+n, next, "chunks %v", chunks)
}

// A leaf that no worker asks from runs in pieces of the loop's step, in
// order, each element once.
func TestALeafRunsInPieces(t *testing.T) {
	const n, step = 64, 4
	p, err := scheduler.New(scheduler.WithWorkers(1))
	require.NoError(t, err)
	defer p.Close()
	chunks := runLeaf(t, p, n, step, nil)
	requireCover(t, chunks, n)
	for _, c := range chunks {
		require.Equal(t, step, c[1]-c[0], "chunks %v", chunks)
	}
}

// A leaf whose worker is asked for work by a worker that searches splits
// what is left after its first piece: the rest's second half, [35, 66),
// starts a chunk of its own, which pieces of the step alone (multiples of
// 4) never do. Each element still runs once. The other worker may fall
// asleep between the first piece's look at it and the leaf's (a few
// instructions against its thousands of search rounds); the leaf is run
// again then, up to attempts times.
func TestALeafSplitsTheRestForAWorkerThatSearches(t *testing.T) {
	const n, step, attempts = 66, 4, 50
	p, err := scheduler.New(scheduler.WithWorkers(2),
		scheduler.WithSleep(sleep.Tunables{SearchRounds: sleep.MaxSearchRounds}))
	require.NoError(t, err)
	defer p.Close()
	mid := step + (n-step)/2
	for range attempts {
		chunks := runLeaf(t, p, n, step, func(*scheduler.Worker) { untilTheOtherSearches(p) })
		requireCover(t, chunks, n)
		if slices.ContainsFunc(chunks, func(c [2]int) bool { return c[0] == mid }) {
			return
		}
	}
	t.Fatalf("in %d leaves, none split its rest at %d for the worker searching", attempts, mid)
}

// A request that only a sleeping worker can answer splits a leaf's rest
// only if the rest, at the cost per element timed since the request was
// seen, is worth a wake-up: with a clock that gains a millisecond a read,
// the leaf sees the request after its first piece, times its second, and
// splits the rest, [8, 66), at 37; with a clock that stands still, the
// rest costs nothing, and the leaf runs in pieces to its end. The same
// holds over negative indices.
func TestALeafWakesASleeperOnlyForWorkWorthTheWakeUp(t *testing.T) {
	const n, step = 66, 4
	for _, c := range []struct {
		name  string
		lo    int
		tick  time.Duration
		split bool
	}{
		{"worth", 0, time.Millisecond, true},
		{"not-worth", 0, 0, false},
		{"worth-negative", -1000, time.Millisecond, true},
		{"not-worth-negative", -1000, 0, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, err := scheduler.New(scheduler.WithWorkers(2))
			require.NoError(t, err)
			defer p.Close()
			var now atomic.Int64
			clock := func() time.Duration { return time.Duration(now.Add(int64(c.tick))) }
			chunks := runLeafClock(t, p, c.lo, n, step, func(*scheduler.Worker) { untilTheOtherSleepsAfterAsking(t, p) }, clock)
			requireCoverFrom(t, chunks, c.lo, n)
			mid := c.lo + 2*step + (n-2*step)/2
			require.Equal(t, c.split, slices.ContainsFunc(chunks, func(ch [2]int) bool { return ch[0] == mid }),
				"split at %d: chunks %v", mid, chunks)
			if !c.split {
				for _, ch := range chunks {
					require.Zero(t, (ch[0]-c.lo)%step, "chunks %v", chunks)
				}
			}
		})
	}
}

// step keeps a piece at checkWork or more, in leafPieces pieces at most,
// and leaves a MinLen loop's leaves whole.
func TestStep(t *testing.T) {
	c := config{minLen: 1}
	require.Equal(t, 1000, c.step(8000, 0))
	require.Equal(t, 1, c.step(3, 0))
	require.Equal(t, 500, c.step(1000, float64(checkWork)/500)) // checkWork is 500 elements: more than the grain's eighth
	require.Equal(t, 125, c.step(1000, float64(checkWork)))     // one element holds checkWork: the eighth wins
	c.setMin = true
	require.Equal(t, math.MaxInt, c.step(8000, 0))
}
