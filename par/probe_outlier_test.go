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
// elements whose first element took microseconds (interrupted, or missing
// every cache) is not shared for it. The probe times one more element;
// where that one cost a fraction of the first, the first was an outlier,
// and the probe times the rest afresh from the third element, which here
// costs 3 ns: the rest runs inline, four chunks in all. Judged on the
// first element alone, the loop looked like milliseconds of work; judged
// on the second, run just after the interruption with cold caches, 45 ns
// an element (45 µs, over inlineWork), and it was split to be shared: on
// the 2-vCPU VM, 184 in 300,000 loops of a thousand cheap elements from
// outside the pool went to it, where 5 do now. A first element of
// inlineWork or more gets no second opinion: a loop of 256 rows of 45 µs
// ran two rows alone before its first fork.
func TestProbeTakesASecondOpinionOnASlowFirstElement(t *testing.T) {
	for _, tc := range []struct {
		name   string
		clock  func() time.Duration
		chunks int64 // 0: split
	}{
		// start, after element 0; the second opinion's start and end; the
		// fresh start, after element 2
		{"outlier", scriptedClock(0, 2000, 2000, 2005, 2005, 2008), 4},
		{"outlier then cold", scriptedClock(0, 5000, 5000, 5045, 5045, 5048), 4},
		// every element costs 2 µs: the second opinion agrees
		{"expensive", scriptedClock(0, 2000, 2000, 4000), 0},
		// the second costs a quarter of the first: not an outlier, and
		// 500 ns an element is worth sharing
		{"uneven", scriptedClock(0, 2000, 2000, 2500), 0},
		// a first element of 40 µs is believed without a second opinion,
		// which would cost more than sharing a cheap loop by mistake
		// (here the elements after it cost 1 ns: the mistake, made
		// knowingly)
		{"dearer than a second opinion is worth", scriptedClock(0, 40000), 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			onOne(t, func(w *scheduler.Worker) {
				var chunks, total atomic.Int64
				par.ForRange(w, 0, 1000, func(_ *scheduler.Worker, lo, hi int) {
					chunks.Add(1)
					total.Add(int64(hi - lo))
				}, par.WithClock(tc.clock))
				assert.Equal(t, int64(1000), total.Load(), "every element, once")
				if tc.chunks > 0 {
					assert.Equal(t, tc.chunks, chunks.Load(), "element 0, element 1, element 2, the rest")
				} else {
					assert.Greater(t, chunks.Load(), int64(10), "split")
				}
			})
		})
	}
}

// TestProbeTakesOffTheClockReads: the probe's timings include its clock
// reads, which it takes off. The first element of a loop of 1,100 cheap
// ones timed 30 ns, 25 of them the read: at 5 ns an element the rest is
// far below inlineWork, and runs inline after that one piece. Counted at
// 30 ns, it would be 33 µs, over inlineWork, and the probe would time a
// second piece first (before, a loop of a thousand cheap elements sat at
// the threshold this way). But a timing is never taken down below a
// quarter: one that came out at the reads' cost (the element's cost lost
// in the reads' jitter) would say the element cost nothing, and a loop of
// 10,000 such elements would run inline, as would one of ten million.
func TestProbeTakesOffTheClockReads(t *testing.T) {
	for _, tc := range []struct {
		name     string
		n        int
		first    time.Duration // the first element's timing
		readCost time.Duration
		chunks   int64
	}{
		{"reads taken off", 1100, 30, 25, 2},         // element 0, the rest
		{"reads counted", 1100, 30, 0, 3},            // element 0, elements 1-16, the rest
		{"no less than a quarter", 10000, 25, 25, 3}, // 6.25 ns: 62 µs left, a second piece
	} {
		t.Run(tc.name, func(t *testing.T) {
			onOne(t, func(w *scheduler.Worker) {
				var chunks, total atomic.Int64
				par.ForRange(w, 0, tc.n, func(_ *scheduler.Worker, lo, hi int) {
					chunks.Add(1)
					total.Add(int64(hi - lo))
				}, par.WithClock(scriptedClock(0, tc.first)), par.WithReadCost(tc.readCost))
				assert.Equal(t, int64(tc.n), total.Load(), "every element, once")
				assert.Equal(t, tc.chunks, chunks.Load())
			})
		})
	}
}

// TestProbeTimesAgainOnATimingOfNothing: a timing of 0 or less says
// nothing of what the elements cost, and the probe times a longer piece
// rather than decide on it. Here the clock steps back 10 ns over the first
// element (as two reads may where internal/clock switches from the
// runtime's clock to the counter), and the next 16 elements take 20 µs:
// the loop is worth sharing. Taken at its word, the first timing gave a
// cost below zero, and the whole loop ran inline after one element.
func TestProbeTimesAgainOnATimingOfNothing(t *testing.T) {
	onOne(t, func(w *scheduler.Worker) {
		var chunks, total atomic.Int64
		par.ForRange(w, 0, 1000, func(_ *scheduler.Worker, lo, hi int) {
			chunks.Add(1)
			total.Add(int64(hi - lo))
		}, par.WithClock(scriptedClock(100, 90, 20_100)), par.WithReadCost(0))
		assert.Equal(t, int64(1000), total.Load(), "every element, once")
		assert.Greater(t, chunks.Load(), int64(10), "split")
	})
}
