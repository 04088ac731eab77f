package par_test

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/weftrt/weft/par"
	"github.com/weftrt/weft/scheduler"
)

// scriptedClock returns the readings in order, then the last one plus a
// nanosecond for every read after them.
func scriptedClock(readings ...time.Duration) func() time.Duration {
	var n atomic.Int64
	return func() time.Duration {
		i := int(n.Add(1)) - 1
		if i < len(readings) {
			return readings[i]
		}
		return readings[len(readings)-1] + time.Duration(i-len(readings)+1)
	}
}

// TestProbeTakesASecondOpinionOnASlowFirstElement: a loop of cheap
// elements whose first element took two microseconds (interrupted, or
// missing every cache) is not shared for it. The probe times one more
// element, sees it cost 5 ns, and runs the rest inline: three chunks in
// all. Judged on the first element alone, the loop looked like 2 ms of
// work, and was split to be shared.
func TestProbeTakesASecondOpinionOnASlowFirstElement(t *testing.T) {
	for _, tc := range []struct {
		name   string
		clock  func() time.Duration
		inline bool
	}{
		// start, after element 0; the second opinion's start and end
		{"outlier", scriptedClock(0, 2000, 2000, 2005), true},
		// every element costs 2 µs: the second opinion agrees
		{"expensive", scriptedClock(0, 2000, 2000, 4000), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			onOne(t, func(w *scheduler.Worker) {
				var chunks, total atomic.Int64
				par.ForRange(w, 0, 1000, func(_ *scheduler.Worker, lo, hi int) {
					chunks.Add(1)
					total.Add(int64(hi - lo))
				}, par.WithClock(tc.clock))
				assert.Equal(t, int64(1000), total.Load(), "every element, once")
				if tc.inline {
					assert.Equal(t, int64(3), chunks.Load(), "element 0, element 1, the rest")
				} else {
					assert.Greater(t, chunks.Load(), int64(3), "split")
				}
			})
		})
	}
}
