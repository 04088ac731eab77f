package latch_test

import (
	"math"
	"strconv"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/weftrt/weft/latch"
)

func TestCountSetsTargetAtZero(t *testing.T) {
	var b latch.Blocking
	var c latch.Count
	c.Init(1, &b)
	const tasks = 100
	var wg sync.WaitGroup
	for range tasks {
		c.Add()
	}
	results := make([]int, tasks)
	for i := range tasks {
		wg.Go(func() {
			results[i] = i * i
			c.Done()
		})
	}
	assert.False(t, b.Probe() && c.Pending() > 1, "set before the count reached zero")
	c.Done() // the body's own count
	b.Wait()
	assert.Zero(t, c.Pending())
	for i, r := range results { // written before Done, so visible after Wait
		assert.Equal(t, i*i, r)
	}
	wg.Wait()
}

func TestCountMisuse(t *testing.T) {
	var b latch.Blocking
	var c latch.Count
	assert.PanicsWithValue(t, "weft/latch: Count.Init(0, ...): want a count >= 1", func() { c.Init(0, &b) })
	assert.PanicsWithValue(t, "weft/latch: Count.Init with a nil target", func() { c.Init(1, nil) })
	c.Init(1, &b)
	c.Done()
	assert.True(t, b.Probe())
	assert.PanicsWithValue(t, "weft/latch: Count.Add after the count reached zero", c.Add)
	assert.False(t, c.TryAdd(), "the count reached zero")
	assert.Zero(t, c.Pending(), "a refused TryAdd leaves the count at zero")
	c.Init(1, &b)
	assert.True(t, c.TryAdd())
	assert.EqualValues(t, 2, c.Pending())
	c.Done()
	c.Done()
	c.Init(1, &b)
	c.Done()
	assert.PanicsWithValue(t, "weft/latch: Count.Done called more times than counted", c.Done)
}

// TestCountInitPanicNamesTheCount: a count Init refuses is named in the
// panic, with what Init accepts.
func TestCountInitPanicNamesTheCount(t *testing.T) {
	var b latch.Blocking
	for _, n := range []int64{0, -1, math.MinInt64} {
		var c latch.Count
		r := func() (r any) {
			defer func() { r = recover() }()
			c.Init(n, &b)
			return nil
		}()
		require.IsType(t, "", r, "n=%d", n)
		assert.Contains(t, r, "Count.Init("+strconv.FormatInt(n, 10)+", ...)")
		assert.Contains(t, r, "want a count >= 1")
	}
	// A bad count is named even with a nil target too.
	var c latch.Count
	assert.PanicsWithValue(t, "weft/latch: Count.Init(-2, ...): want a count >= 1", func() { c.Init(-2, nil) })
}
