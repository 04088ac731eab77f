package deque_test

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/weftrt/weft/deque"
)

func ints(n int) []int {
	v := make([]int, n)
	for i := range v {
		v[i] = i
	}
	return v
}

func TestZeroValueIsEmpty(t *testing.T) {
	var d deque.Deque[int]
	assert.True(t, d.IsEmpty())
	assert.Equal(t, 0, d.Len())
	x, ok := d.Pop()
	assert.False(t, ok)
	assert.Nil(t, x)
	x, r := d.Steal()
	assert.Equal(t, deque.Empty, r)
	assert.Nil(t, x)
	assert.Equal(t, 0, d.Cap())
}

func TestPopIsLIFOAndStealIsFIFO(t *testing.T) {
	d := deque.New[int](4)
	v := ints(10) // more than the capacity: forces two grows
	for i := range v {
		d.Push(&v[i])
	}
	require.Equal(t, 10, d.Len())
	require.Equal(t, 16, d.Cap())
	for want := 0; want < 5; want++ {
		x, r := d.Steal()
		require.Equal(t, deque.Success, r)
		require.Equal(t, want, *x)
	}
	for want := 9; want >= 5; want-- {
		x, ok := d.Pop()
		require.True(t, ok)
		require.Equal(t, want, *x)
	}
	_, ok := d.Pop()
	require.False(t, ok)
	require.True(t, d.IsEmpty())
}

func TestNewRoundsCapacityUp(t *testing.T) {
	for _, c := range []struct{ in, want int }{{0, 0}, {1, 1}, {3, 4}, {64, 64}, {65, 128}} {
		assert.Equal(t, c.want, deque.New[int](c.in).Cap(), "New(%d)", c.in)
	}
}

func TestShrinkAfterDrain(t *testing.T) {
	d := deque.New[int](2)
	d.SetShrinkFloor(8)
	v := ints(1000)
	for i := range v {
		d.Push(&v[i])
	}
	require.Equal(t, 1024, d.Cap())
	caps := []int{}
	for want := 999; want >= 0; want-- {
		x, ok := d.Pop()
		require.True(t, ok)
		require.Equal(t, want, *x)
		if c := d.Cap(); c != 1024 && (len(caps) == 0 || caps[len(caps)-1] != c) {
			caps = append(caps, c)
		}
	}
	// 1024 slots under a quarter full (255 left) for 128 pops: 127 left,
	// so 512 slots; then 64 more pops in a row leave 63, and so on.
	assert.Equal(t, []int{512, 256, 128, 64, 32, 16, 8}, caps)
}

func TestOscillatingDequeKeepsItsBuffer(t *testing.T) {
	d := deque.New[int](2)
	d.SetShrinkFloor(8)
	v := ints(1000)
	for range 50 {
		for i := range v {
			d.Push(&v[i])
		}
		for range 850 {
			d.Pop() // the last 105 leave it under a quarter full: a run < 128
		}
		for range 150 {
			d.Steal()
		}
	}
	assert.Equal(t, 1024, d.Cap())
}

func TestDefaultNeverShrinksSmallBuffers(t *testing.T) {
	d := deque.New[int](2)
	v := ints(1000)
	for i := range v {
		d.Push(&v[i])
	}
	for range v {
		d.Pop()
	}
	assert.Equal(t, 1024, d.Cap(), "default floor is 1024 slots")
}

func TestMisusePanics(t *testing.T) {
	var d deque.Deque[int]
	assert.PanicsWithValue(t, "weft/deque: Push of a nil element", func() { d.Push(nil) })
	var q deque.Injector[int]
	assert.PanicsWithValue(t, "weft/deque: Injector.Push of a nil element", func() { q.Push(nil) })
}

// TestNewPanicNamesTheCapacity: a capacity New refuses is named in the
// panic, with the range it accepts.
func TestNewPanicNamesTheCapacity(t *testing.T) {
	for _, tc := range []struct {
		capacity int
		want     string
	}{
		// 2^40 where an int has 64 bits, 2^30 where it has 32.
		{-1, "weft/deque: New(-1): capacity out of range (want 0.." + strconv.Itoa(1<<(30+10*(strconv.IntSize/64))) + "; 0 for the default)"},
		{math.MinInt, "New(" + strconv.Itoa(math.MinInt) + ")"},
		{math.MaxInt, "New(" + strconv.Itoa(math.MaxInt) + ")"},
	} {
		r := func() (r any) {
			defer func() { r = recover() }()
			deque.New[int](tc.capacity)
			return nil
		}()
		require.IsType(t, "", r, "capacity %d", tc.capacity)
		assert.Contains(t, r, tc.want)
		assert.Contains(t, r, "want 0..")
	}
	for _, capacity := range []int{0, 1, 1 << 10} {
		assert.NotPanics(t, func() { deque.New[int](capacity) }, "capacity %d", capacity)
	}
}

func TestStealResultString(t *testing.T) {
	assert.Equal(t, "Empty", deque.Empty.String())
	assert.Equal(t, "Success", deque.Success.String())
	assert.Equal(t, "Retry", deque.Retry.String())
	assert.Equal(t, "StealResult(?)", deque.StealResult(9).String())
}

// TestSequentialModel runs random operation sequences, in phases biased
// towards pushing or towards taking so that buffers grow and shrink, against
// the slice model on every configuration.
func TestSequentialModel(t *testing.T) {
	runs, length := 40, 3000
	if testing.Short() {
		runs = 10
	}
	for _, c := range configs {
		t.Run(c.name, func(t *testing.T) {
			for seed := range uint64(runs) {
				ops := randomOps(rand.New(rand.NewPCG(seed, 7)), length)
				require.NoError(t, checkSequential(c.make(), ops), "seed %d", seed)
			}
		})
	}
}

// randomOps returns n op codes in phases of random length and bias.
func randomOps(r *rand.Rand, n int) []byte {
	ops := make([]byte, 0, n)
	for len(ops) < n {
		pushBias := r.Float64()
		for range r.IntN(200) + 1 {
			switch {
			case r.Float64() < pushBias:
				ops = append(ops, opPush)
			case r.IntN(2) == 0:
				ops = append(ops, opPop)
			default:
				ops = append(ops, opSteal)
			}
		}
	}
	return ops[:n]
}

// TestPushPopDoesNotAllocate checks the owner's steady state allocates
// nothing.
func TestPushPopDoesNotAllocate(t *testing.T) {
	d := deque.New[int](0)
	v := ints(65)
	for i := range 64 {
		d.Push(&v[i])
	}
	allocs := testing.AllocsPerRun(1000, func() {
		d.Push(&v[64])
		d.Pop()
		d.Push(&v[64])
		d.Steal()
	})
	assert.Zero(t, allocs)
	assert.Equal(t, 64, d.Len())
}
