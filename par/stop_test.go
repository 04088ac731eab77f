package par_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/weftrt/weft/par"
	"github.com/weftrt/weft/scheduler"
)

var errBoom = errors.New("boom")

// onOne runs f on a one-worker pool, where chunks run left to right, so
// that "nothing after the failure ran" is exact.
func onOne(t *testing.T, f func(w *scheduler.Worker)) {
	t.Helper()
	p, err := scheduler.New(scheduler.WithWorkers(1))
	require.NoError(t, err)
	defer p.Close()
	require.NoError(t, p.Run(context.Background(), func(w *scheduler.Worker) error { f(w); return nil }))
}

func TestForErrStopsAtFirstError(t *testing.T) {
	const n, bad = 10_000, 3_000
	onOne(t, func(w *scheduler.Worker) {
		var last atomic.Int64
		err := par.ForErr(context.Background(), w, n, func(i int) error {
			last.Store(int64(i))
			if i == bad {
				return errBoom
			}
			return nil
		}, par.MinLen(1))
		assert.ErrorIs(t, err, errBoom)
		assert.EqualValues(t, bad, last.Load(), "an element after the failure ran")
	})
}

func TestErrorsPropagateOnManyWorkers(t *testing.T) {
	for name, p := range pools(t) {
		t.Run(name, func(t *testing.T) {
			require.NoError(t, p.Run(context.Background(), func(w *scheduler.Worker) error {
				var ran atomic.Int64
				err := par.ForRangeErr(context.Background(), w, 0, 100_000, func(_ *scheduler.Worker, lo, hi int) error {
					ran.Add(int64(hi - lo))
					if lo <= 500 && 500 < hi {
						return errBoom
					}
					return nil
				}, par.MinLen(1), par.MaxLen(100))
				assert.ErrorIs(t, err, errBoom)
				if p.Workers() == 1 {
					// Only one worker makes the skip certain. With
					// several, the others may run every chunk left while
					// the failing chunk's worker is descheduled between
					// its error and the stop: it failed so under -race on
					// two loaded cores.
					assert.Less(t, ran.Load(), int64(100_000), "no chunk was skipped after the error")
				}

				xs := make([]int, 1000)
				out, err := par.MapErr(context.Background(), w, xs, func(int) (int, error) { return 0, errBoom })
				assert.ErrorIs(t, err, errBoom)
				assert.Nil(t, out)
				return nil
			}))
		})
	}
}

func TestPanicPropagatesAfterStopping(t *testing.T) {
	const n, bad = 10_000, 3_000
	onOne(t, func(w *scheduler.Worker) {
		var after atomic.Int64
		r := func() (r any) {
			defer func() { r = recover() }()
			par.For(w, n, func(i int) {
				if i > bad {
					after.Add(1)
				}
				if i == bad {
					panic("boom")
				}
			}, par.MinLen(1))
			return nil
		}()
		var p *scheduler.Panic
		require.ErrorAs(t, r.(error), &p)
		assert.Equal(t, "boom", p.Value)
		assert.Zero(t, after.Load(), "a chunk started after the panic")
	})
}

// panicAt panics in the chunk that holds bad.
func panicAt(_ *scheduler.Worker, bad, lo, hi int) {
	if lo <= bad && bad < hi {
		panic(errBoom)
	}
}

func TestPanicPropagatesOnManyWorkers(t *testing.T) {
	forms := map[string]func(w *scheduler.Worker, n int){
		"ForRange": func(w *scheduler.Worker, n int) {
			par.ForRange(w, 0, n, func(w *scheduler.Worker, lo, hi int) { panicAt(w, n-7, lo, hi) }, par.MaxLen(100))
		},
		"ForRangeWith": func(w *scheduler.Worker, n int) { par.ForRangeWith(w, n-7, 0, n, panicAt, par.MaxLen(100)) },
	}
	for name, p := range pools(t) {
		for form, loop := range forms {
			for _, n := range []int{10, 100_000} { // inline, and split
				r := func() (r any) {
					defer func() { r = recover() }()
					_ = p.Run(context.Background(), func(w *scheduler.Worker) error {
						loop(w, n)
						return nil
					})
					return nil
				}()
				var pan *scheduler.Panic
				require.ErrorAs(t, r.(error), &pan, "%s %s n=%d", name, form, n)
				assert.ErrorIs(t, pan, errBoom)
			}
		}
	}
}

func TestCancelStopsNewChunks(t *testing.T) {
	const n = 10_000
	onOne(t, func(w *scheduler.Worker) {
		ctx, cancel := context.WithCancelCause(context.Background())
		defer cancel(nil)
		var ran atomic.Int64
		err := par.ForRangeErr(ctx, w, 0, n, func(_ *scheduler.Worker, lo, hi int) error {
			if ran.Add(1) == 1 {
				cancel(errBoom)
			}
			return nil
		}, par.MinLen(1), par.MaxLen(1))
		assert.ErrorIs(t, err, errBoom)
		// One worker: no chunk was running beside the first, and every
		// later one sees the cancellation before it starts.
		assert.Equal(t, int64(1), ran.Load())
	})
}

func TestCancelledBeforeStartRunsNothing(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var ran atomic.Int64
	err := par.ForOn(ctx, nil, 1000, func(int) { ran.Add(1) })
	assert.ErrorIs(t, err, context.Canceled)
	assert.Zero(t, ran.Load())
}
