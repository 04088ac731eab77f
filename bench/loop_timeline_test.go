package bench_test

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/weftrt/weft/internal/work"
	"github.com/weftrt/weft/par"
	"github.com/weftrt/weft/scheduler"
)

// BenchmarkLoopTimeline shows where a loop's second worker loses its time,
// which the loops' wall times, spread by a few percent from round to
// round on a shared machine, cannot: every chunk records its worker and
// when it ran, and each loop (run from a task, back to back, as in
// BenchmarkLoops' weft rows) reports, averaged over the loops:
//
//   - helper-start-µs: when the worker not running the task ran its first
//     chunk, from the loop's start (the probe's serial part and the
//     wake-up);
//   - end-gap-µs: how long before the loop's end one worker ran its last
//     chunk (the balance at the end);
//   - idle-µs: the two workers' time outside any chunk during the loop.
//
// The recording costs two clock reads and an atomic add a chunk: about 5%
// of a piece of uniform-400k (a microsecond), nothing next to a row of
// matmul-256-nested (45 µs). Run it with -cpu 2: a one-worker pool has
// no second worker, and the figures are 0.
func BenchmarkLoopTimeline(b *testing.B) {
	b.Run("uniform-400k", func(b *testing.B) {
		timeline(b, func(w *scheduler.Worker, rec recorder) {
			par.ReduceRange(w, 0, 400_000, 0, func(w *scheduler.Worker, lo, hi int) float64 {
				defer rec(w, time.Now())
				return work.Uniform(lo, hi)
			}, addFloat)
		})
	})
	b.Run("matmul-256-nested", func(b *testing.B) {
		a, m, c, _ := matMulCase(256, work.MulRowsBlocked)
		blocks := a.N / work.MatMulBlock
		timeline(b, func(w *scheduler.Worker, rec recorder) {
			par.ReduceRange(w, 0, a.N, 0, func(w *scheduler.Worker, ilo, ihi int) float64 {
				defer rec(w, time.Now())
				var s float64
				for i := ilo; i < ihi; i++ {
					s += par.ReduceRange(w, 0, blocks, 0, func(_ *scheduler.Worker, blo, bhi int) float64 {
						var s float64
						for bl := blo; bl < bhi; bl++ {
							s += work.MulRowCols(a, m, c, i, bl*work.MatMulBlock, (bl+1)*work.MatMulBlock)
						}
						return s
					}, addFloat)
				}
				return s
			}, addFloat)
		})
	})
}

func addFloat(x, y float64) float64 { return x + y }

// recorder records a chunk that ran on w from start to now.
type recorder func(w *scheduler.Worker, start time.Time)

// chunkEvent is a chunk a recorder saw: its worker, and when it started
// and ended, from the loop's start.
type chunkEvent struct {
	worker     int
	start, end time.Duration
}

// timeline runs loop b.N times from one task on a two-worker pool (or a
// pool of GOMAXPROCS workers, of which the first two are looked at) and
// reports the figures BenchmarkLoopTimeline describes.
func timeline(b *testing.B, loop func(w *scheduler.Worker, rec recorder)) {
	p := newPool(b)
	events := make([]chunkEvent, 1<<16)
	var n atomic.Int64
	var loopStart time.Time
	rec := func(w *scheduler.Worker, start time.Time) {
		if i := n.Add(1) - 1; i < int64(len(events)) {
			events[i] = chunkEvent{w.Index(), start.Sub(loopStart), time.Since(loopStart)}
		}
	}
	var helperStart, endGap, idle time.Duration
	onPool(b, p, func(w *scheduler.Worker) {
		b.ResetTimer()
		for range b.N {
			n.Store(0)
			loopStart = time.Now()
			loop(w, rec)
			wall := time.Since(loopStart)
			s, e, i := summarize(events[:min(n.Load(), int64(len(events)))], w.Index(), wall)
			helperStart, endGap, idle = helperStart+s, endGap+e, idle+i
		}
	})
	loops := float64(b.N)
	b.ReportMetric(float64(helperStart.Microseconds())/loops, "helper-start-µs")
	b.ReportMetric(float64(endGap.Microseconds())/loops, "end-gap-µs")
	b.ReportMetric(float64(idle.Microseconds())/loops, "idle-µs")
}

// summarize reads one loop's chunks, run by owner and one helper: when the
// helper started (the loop's wall time if it never did), how far apart the
// two workers' last chunks ended, and the two workers' time outside chunks.
func summarize(events []chunkEvent, owner int, wall time.Duration) (helperStart, endGap, idle time.Duration) {
	helper := 1 - min(owner, 1) // worker 1 for an owner 0, else worker 0
	helperStart = wall
	var last [2]time.Duration
	var busy time.Duration
	for _, e := range events {
		if e.worker != owner && e.worker != helper {
			continue
		}
		slot := 0
		if e.worker == helper {
			slot = 1
			helperStart = min(helperStart, e.start)
		}
		last[slot] = max(last[slot], e.end)
		busy += e.end - e.start
	}
	return helperStart, max(last[0], last[1]) - min(last[0], last[1]), 2*wall - busy
}
