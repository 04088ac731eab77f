package deque_test

import (
	"math"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/weftrt/weft/deque"
)

// stressCase is one owner-versus-thieves run.
type stressCase struct {
	name     string
	make     func() *deque.Deque[int]
	n        int // elements pushed in all
	maxBurst int // the owner pushes 1..maxBurst, then pops up to as many
	thieves  int
	// wantShrink: fail unless the buffer shrank at least once.
	wantShrink bool
}

func stressCases(short bool) []stressCase {
	n := 2_000_000
	if raceEnabled {
		n /= 4
	}
	if short {
		n /= 5
	}
	return []stressCase{
		{"default", func() *deque.Deque[int] { return new(deque.Deque[int]) }, n, 64, 3, false},
		// Bursts of one or two keep the deque near empty, so the owner
		// and the thieves keep racing for the last element.
		{"nearEmpty", func() *deque.Deque[int] { return new(deque.Deque[int]) }, n, 2, 2, false},
		{"growShrink", func() *deque.Deque[int] {
			d := deque.New[int](1)
			d.SetShrinkFloor(2)
			return d
		}, n, 700, 3, true},
		// Indices start close to the top of int64 (and at an odd ring
		// offset); the first burst grows the buffer from 2 slots to
		// thousands while thieves steal.
		{"bigIndexGrow", func() *deque.Deque[int] {
			d := deque.NewAt[int](2, math.MaxInt64-1<<30-7)
			d.SetShrinkFloor(2)
			return d
		}, n, n / 4, 2, false},
	}
}

// TestStressExactlyOnce has one owner pushing and popping while thieves
// steal, and checks that every element is taken exactly once and that each
// thief's steals come out in push order.
func TestStressExactlyOnce(t *testing.T) {
	for _, c := range stressCases(testing.Short()) {
		t.Run(c.name, func(t *testing.T) {
			runStress(t, c, uint64(len(c.name)))
		})
	}
}

func runStress(t *testing.T, c stressCase, seed uint64) {
	d := c.make()
	vals := ints(c.n)
	taken := make([]atomic.Int32, c.n)
	var done atomic.Bool
	var stolen atomic.Int64
	var ready atomic.Int64
	var wg sync.WaitGroup
	for range c.thieves {
		wg.Go(func() {
			ready.Add(1)
			last, misses := -1, 0
			for !done.Load() {
				x, r := d.Steal()
				if r != deque.Success {
					if misses++; misses%32 == 0 {
						runtime.Gosched()
					}
					continue
				}
				if *x <= last {
					t.Errorf("thief stole %d after %d: steals must be FIFO", *x, last)
				}
				last = *x
				taken[*x].Add(1)
				stolen.Add(1)
			}
		})
	}
	// Start once every thief is running, so they overlap with the owner.
	spinUntil(func() bool { return ready.Load() == int64(c.thieves) })
	popped, shrinks := ownerRun(d, c, vals, taken, seed)
	done.Store(true)
	wg.Wait()
	for i := range taken {
		require.EqualValues(t, 1, taken[i].Load(), "element %d taken %d times", i, taken[i].Load())
	}
	require.True(t, d.IsEmpty())
	t.Logf("%d popped by the owner, %d stolen, %d shrinks", popped, stolen.Load(), shrinks)
	if c.wantShrink {
		require.Positive(t, shrinks, "the buffer never shrank")
	}
}

// ownerRun pushes every element in bursts, popping some after each burst,
// then pops until the deque is empty. It returns how many it popped and how
// many times the buffer shrank.
func ownerRun(d *deque.Deque[int], c stressCase, vals []int, taken []atomic.Int32, seed uint64) (popped, shrinks int) {
	r := rand.New(rand.NewPCG(seed, 99))
	take := func() bool {
		size := d.Cap()
		x, ok := d.Pop()
		if ok {
			taken[*x].Add(1)
			popped++
		}
		if d.Cap() < size {
			shrinks++
		}
		return ok
	}
	for i := 0; i < len(vals); {
		burst := min(1+r.IntN(c.maxBurst), len(vals)-i)
		for range burst {
			d.Push(&vals[i])
			i++
		}
		for range r.IntN(burst + 1) {
			take()
		}
	}
	for take() {
	}
	return popped, shrinks
}
