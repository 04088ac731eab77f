package deque_test

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/weftrt/weft/deque"
)

func TestInjectorZeroValueIsEmpty(t *testing.T) {
	var q deque.Injector[int]
	assert.True(t, q.IsEmpty())
	assert.Equal(t, 0, q.Len())
	x, ok := q.Pop()
	assert.False(t, ok)
	assert.Nil(t, x)
}

// TestInjectorFIFO interleaves pushes and pops so the ring's head wraps
// around and the ring grows while wrapped, and checks FIFO order throughout.
func TestInjectorFIFO(t *testing.T) {
	var q deque.Injector[int]
	v := ints(5000)
	pushed, popped := 0, 0
	for round := 1; pushed < len(v); round++ {
		for range min(3*round, len(v)-pushed) {
			q.Push(&v[pushed])
			pushed++
		}
		for range 2 * round {
			x, ok := q.Pop()
			if popped == pushed {
				require.False(t, ok)
				break
			}
			require.True(t, ok)
			require.Equal(t, popped, *x)
			popped++
		}
		require.Equal(t, pushed-popped, q.Len())
		require.Equal(t, pushed == popped, q.IsEmpty())
	}
	for ; popped < pushed; popped++ {
		x, ok := q.Pop()
		require.True(t, ok)
		require.Equal(t, popped, *x)
	}
	require.True(t, q.IsEmpty())
}

func TestInjectorDoesNotAllocate(t *testing.T) {
	var q deque.Injector[int]
	v := ints(100)
	for i := range v {
		q.Push(&v[i])
	}
	allocs := testing.AllocsPerRun(1000, func() {
		x, _ := q.Pop()
		q.Push(x)
	})
	assert.Zero(t, allocs)
}

// TestInjectorMPMC has several producers and consumers at once and checks
// that every element comes out exactly once and that each consumer sees each
// producer's elements in the order they were pushed.
func TestInjectorMPMC(t *testing.T) {
	const producers, consumers = 3, 3
	per := 100_000
	if raceEnabled || testing.Short() {
		per /= 10
	}
	total := producers * per
	v := ints(total) // producer p pushes v[p*per : (p+1)*per] in order
	taken := make([]atomic.Int32, total)
	var q deque.Injector[int]
	var got atomic.Int64
	var wg sync.WaitGroup
	for p := range producers {
		wg.Go(func() {
			for i := p * per; i < (p+1)*per; i++ {
				q.Push(&v[i])
			}
		})
	}
	for range consumers {
		wg.Go(func() { consume(t, &q, taken, &got, int64(total), per) })
	}
	wg.Wait()
	for i := range taken {
		require.EqualValues(t, 1, taken[i].Load(), "element %d", i)
	}
	require.True(t, q.IsEmpty())
}

// consume pops until got reaches total, checking per-producer order.
func consume(t *testing.T, q *deque.Injector[int], taken []atomic.Int32, got *atomic.Int64, total int64, per int) {
	last := map[int]int{}
	for got.Load() < total {
		x, ok := q.Pop()
		if !ok {
			runtime.Gosched()
			continue
		}
		p := *x / per
		if prev, seen := last[p]; seen && *x <= prev {
			t.Errorf("consumer saw %d after %d from producer %d", *x, prev, p)
		}
		last[p] = *x
		taken[*x].Add(1)
		got.Add(1)
	}
}
