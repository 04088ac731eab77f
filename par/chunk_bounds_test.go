package par_test

import (
	"context"
	"fmt"
	"math"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/weftrt/weft/par"
	"github.com/weftrt/weft/scheduler"
)

// TestMinLenBoundsChunks: MinLen sets the shortest chunk. The split cut a
// range down to its grain only, so a range a little longer than MinLen
// (MinLen(10) over 11 elements) was halved into chunks of 5 and 6.
// MinLen skips the probe, so the chunks do not depend on timing.
func TestMinLenBoundsChunks(t *testing.T) {
	p, err := scheduler.New(scheduler.WithWorkers(4), scheduler.WithHeartbeat(time.Nanosecond))
	require.NoError(t, err)
	defer p.Close()
	for _, m := range []int{2, 3, 10, 64} {
		for _, n := range []int{m + 1, 2*m - 1, 2 * m, 3*m + 1, 1000, 4099} {
			for _, maxLen := range []int{0, m, m + 1, 2 * m} { // 0: no MaxLen
				name := fmt.Sprintf("MinLen(%d) MaxLen(%d) n=%d", m, maxLen, n)
				opts := []par.Option{par.MinLen(m)}
				if maxLen > 0 {
					opts = append(opts, par.MaxLen(maxLen))
				}
				var short, covered atomic.Int64
				check := func(lo, hi int) {
					covered.Add(int64(hi - lo))
					if hi-lo < m {
						short.Add(1)
					}
				}
				require.NoError(t, p.Run(context.Background(), func(w *scheduler.Worker) error {
					par.ForRange(w, 0, n, func(_ *scheduler.Worker, lo, hi int) { check(lo, hi) }, opts...)
					_ = par.ReduceRange(w, 0, n, 0, func(_ *scheduler.Worker, lo, hi int) int { check(lo, hi); return 0 },
						func(a, b int) int { return a + b }, opts...)
					return nil
				}))
				_, err := par.ReduceRangeOn(context.Background(), p, 0, n, 0,
					func(lo, hi int) int { check(lo, hi); return 0 },
					func(a, b int) int { return a + b }, opts...)
				require.NoError(t, err)
				require.EqualValues(t, 3*n, covered.Load(), name)
				require.Zero(t, short.Load(), "%s: chunks shorter than MinLen", name)
			}
		}
	}
}

// TestProbeOverHugeRangeHandsOutNoEmptyChunk: the probe's piece grew 16
// times per step with no bound, so over [0, MaxInt) with chunks that cost
// next to nothing (a closed form) it wrapped to 0 after 2^60 and the probe
// called the chunk on empty ranges until a microsecond had passed. MaxLen
// keeps the probe from running the rest inline, which it otherwise does
// before that point. Whether the old code got that far depends on the
// machine's speed (16 pieces within a microsecond); the fixed code hands
// out no empty chunk at any speed.
func TestProbeOverHugeRangeHandsOutNoEmptyChunk(t *testing.T) {
	p, err := scheduler.New(scheduler.WithWorkers(2))
	require.NoError(t, err)
	defer p.Close()
	for range 20 {
		var empty atomic.Int64
		require.NoError(t, p.Run(context.Background(), func(w *scheduler.Worker) error {
			s := par.ReduceRange(w, 0, math.MaxInt, 0, func(_ *scheduler.Worker, lo, hi int) int {
				if hi <= lo {
					empty.Add(1)
				}
				return hi - lo
			}, func(a, b int) int { return a + b }, par.MaxLen(math.MaxInt/2))
			require.Equal(t, math.MaxInt, s)
			return nil
		}))
		require.Zero(t, empty.Load(), "empty chunks")
	}
}

// TestMaxLenBoundsChunksOfRangesLongerThanMaxInt: a range such as
// [math.MinInt, math.MaxInt) holds more than math.MaxInt elements, so hi-lo
// wraps to a negative int. Every form read that as "short enough to run
// inline" and handed the whole range to one chunk, whatever MaxLen said,
// and a chunk that computed hi-lo got a negative length. Chunks that cost
// next to nothing (a closed form) keep the test fast; lengths are counted
// in uint64, where the whole range of 2^64-1 fits.
func TestMaxLenBoundsChunksOfRangesLongerThanMaxInt(t *testing.T) {
	p, err := scheduler.New(scheduler.WithWorkers(2))
	require.NoError(t, err)
	defer p.Close()
	const maxLen = math.MaxInt / 4
	ranges := [][2]int{{math.MinInt, math.MaxInt}, {-10, math.MaxInt}, {math.MinInt, 10}}
	for _, r := range ranges {
		lo, hi := r[0], r[1]
		want := uint64(uint(hi) - uint(lo))
		var long atomic.Int64
		chunk := func(_ *scheduler.Worker, lo, hi int) uint64 {
			if hi <= lo || uint(hi)-uint(lo) > maxLen {
				long.Add(1)
			}
			return uint64(uint(hi) - uint(lo))
		}
		add := func(a, b uint64) uint64 { return a + b }
		var covered atomic.Uint64
		require.NoError(t, p.Run(context.Background(), func(w *scheduler.Worker) error {
			assert.Equal(t, want, par.ReduceRange(w, lo, hi, 0, chunk, add, par.MaxLen(maxLen)), "ReduceRange %v", r)
			par.ForRange(w, lo, hi, func(w *scheduler.Worker, lo, hi int) { covered.Add(chunk(w, lo, hi)) }, par.MaxLen(maxLen))
			return nil
		}))
		assert.Equal(t, want, covered.Load(), "ForRange %v", r)
		s, err := par.ReduceRangeOn(context.Background(), p, lo, hi, 0,
			func(lo, hi int) uint64 { return chunk(nil, lo, hi) }, add, par.MaxLen(maxLen))
		require.NoError(t, err)
		assert.Equal(t, want, s, "ReduceRangeOn %v", r)
		assert.Zero(t, long.Load(), "%v: chunks longer than MaxLen", r)
	}
}
