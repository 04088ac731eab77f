package par_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/weftrt/weft/par"
	"github.com/weftrt/weft/scheduler"
)

// A loop inside a loop body visits every cell once and runs only on the
// pool's workers: every chunk runs on the goroutine of the worker it is
// handed, which the race build checks through join's foreign-worker
// guard, and no more distinct workers than the pool has show up.
func TestNestedLoops(t *testing.T) {
	const rows, cols = 300, 700
	for name, p := range pools(t) {
		t.Run(name, func(t *testing.T) {
			cells := make(visits, rows*cols)
			var mu sync.Mutex
			workers := map[int]bool{}
			err := p.Run(context.Background(), func(w *scheduler.Worker) error {
				par.ForRange(w, 0, rows, func(w *scheduler.Worker, lo, hi int) {
					for r := lo; r < hi; r++ {
						par.ForRange(w, 0, cols, func(w *scheduler.Worker, clo, chi int) {
							assert.True(t, w.IsCurrent())
							mu.Lock()
							workers[w.Index()] = true
							mu.Unlock()
							for c := clo; c < chi; c++ {
								cells[r*cols+c].Add(1)
							}
						}, par.MinLen(16), par.MaxLen(32))
					}
				}, par.MinLen(1), par.MaxLen(4))
				return nil
			})
			require.NoError(t, err)
			cells.requireOnce(t)
			assert.LessOrEqual(t, len(workers), p.Workers())
		})
	}
}

func TestNestedReduce(t *testing.T) {
	for name, p := range pools(t) {
		t.Run(name, func(t *testing.T) {
			add := func(a, b int64) int64 { return a + b }
			got, err := scheduler.RunValue(context.Background(), p, func(w *scheduler.Worker) (int64, error) {
				return par.ReduceRange(w, 0, 200, 0, func(w *scheduler.Worker, lo, hi int) int64 {
					var s int64
					for i := lo; i < hi; i++ {
						s += par.ReduceRange(w, 0, 1000, 0, func(_ *scheduler.Worker, lo, hi int) int64 {
							return int64(hi - lo)
						}, add, par.MaxLen(30))
					}
					return s
				}, add, par.MaxLen(3)), nil
			})
			require.NoError(t, err)
			assert.EqualValues(t, 200*1000, got)
		})
	}
}

func TestNestedPanicStopsOuterLoop(t *testing.T) {
	for name, p := range pools(t) {
		t.Run(name, func(t *testing.T) {
			var inner atomic.Int64
			r := func() (r any) {
				defer func() { r = recover() }()
				_ = par.ForOn(context.Background(), p, 100, func(i int) {
					if i == 50 {
						panic(errBoom)
					}
					inner.Add(1)
				}, par.MaxLen(3))
				return nil
			}()
			assert.ErrorIs(t, r.(error), errBoom)
		})
	}
}
