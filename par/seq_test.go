package par_test

import (
	"context"
	"maps"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/weftrt/weft/par"
	"github.com/weftrt/weft/scheduler"
)

func TestForEachSeqVisitsEveryItemOnce(t *testing.T) {
	for _, opts := range [][]par.Option{nil, {par.MinLen(1)}, {par.MinLen(100)}} {
		each(t, func(t *testing.T, w *scheduler.Worker, n int) {
			v := make(visits, n)
			par.ForEachSeq(w, slices.Values(seqOf(n)), func(i int) { v[i].Add(1) }, opts...)
			v.requireOnce(t)
		})
	}
}

func TestForEachSeq2(t *testing.T) {
	each(t, func(t *testing.T, w *scheduler.Worker, n int) {
		m := map[int]int{}
		for i := range n {
			m[i] = i * 2
		}
		v := make(visits, n)
		par.ForEachSeq2(w, maps.All(m), func(k, val int) {
			assert.Equal(t, 2*k, val)
			v[k].Add(1)
		})
		v.requireOnce(t)
	})
}

func TestForEachSeqErrStopsPulling(t *testing.T) {
	const n = 100_000
	onOne(t, func(w *scheduler.Worker) {
		var pulled atomic.Int64
		seq := func(yield func(int) bool) {
			for i := range n {
				pulled.Add(1)
				if !yield(i) {
					return
				}
			}
		}
		err := par.ForEachSeqErr(context.Background(), w, seq, func(i int) error {
			if i == 100 {
				return errBoom
			}
			return nil
		})
		assert.ErrorIs(t, err, errBoom)
		assert.Less(t, pulled.Load(), int64(n))
	})
}

func TestForEachSeqOnCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var ran atomic.Int64
	err := par.ForEachSeqErrOn(ctx, nil, slices.Values(seqOf(100_000)), func(i int) error {
		if ran.Add(1) == 1 {
			cancel()
		}
		return nil
	})
	assert.ErrorIs(t, err, context.Canceled)
	assert.Less(t, ran.Load(), int64(100_000))
}

func TestForEachSeqPanics(t *testing.T) {
	for name, p := range pools(t) {
		t.Run(name, func(t *testing.T) {
			r := func() (r any) {
				defer func() { r = recover() }()
				_ = p.Run(context.Background(), func(w *scheduler.Worker) error {
					par.ForEachSeq(w, slices.Values(seqOf(1000)), func(i int) {
						if i == 500 {
							panic(errBoom)
						}
					})
					return nil
				})
				return nil
			}()
			require.NotNil(t, r)
			assert.ErrorIs(t, r.(error), errBoom)
		})
	}
}

// seqOf returns 0, 1, ..., n-1.
func seqOf(n int) []int {
	xs := make([]int, n)
	for i := range xs {
		xs[i] = i
	}
	return xs
}

// TestForEachSeqMaxLenBoundsBatches: MaxLen bounds a batch of a sequence
// as it bounds a chunk of a range. Items 0 and 1 wait for each other, so
// they can only finish in batches of their own (MaxLen(1)); in one batch
// of the default 16, item 0 would wait for item 1 behind it for good
// (MaxLen used to be ignored here).
func TestForEachSeqMaxLenBoundsBatches(t *testing.T) {
	p, err := scheduler.New(scheduler.WithWorkers(2))
	require.NoError(t, err)
	defer p.Close()
	require.NoError(t, p.Run(context.Background(), func(w *scheduler.Worker) error {
		one := make(chan struct{})
		var stuck atomic.Bool
		par.ForEachSeq(w, slices.Values([]int{0, 1}), func(i int) {
			if i == 1 {
				close(one)
				return
			}
			select {
			case <-one:
			case <-time.After(10 * time.Second): // bounds the failure; no timing is asserted
				stuck.Store(true)
			}
		}, par.MaxLen(1))
		assert.False(t, stuck.Load(), "items 0 and 1 ran in one batch: MaxLen(1) was ignored")

		// With both set, every item is still visited once. (MinLen over
		// MaxLen panics: TestMinLenOverMaxLenPanics.)
		seen := make(visits, 64)
		par.ForEachSeq(w, slices.Values(seqOf(64)), func(i int) { seen[i].Add(1) }, par.MaxLen(8), par.MinLen(3))
		seen.requireOnce(t)
		return nil
	}))
}
