package par

import (
	"context"
	"iter"
	"sync/atomic"

	"github.com/weftrt/weft/scheduler"
	"github.com/weftrt/weft/scope"
)

// defaultBatch is how many items of an iter.Seq go into one task unless
// MinLen says otherwise. Items of a sequence usually cost more than the
// elements of a slice loop (each is produced by a call of the sequence),
// so batches are short: a task per batch costs about an allocation and a
// deque push.
const defaultBatch = 16

// maxBatchCap is the most capacity a batch is made with; append grows a
// longer one as items come. MinLen may be far more than a sequence will
// ever yield (MinLen(math.MaxInt) says "never split"), and a batch made
// at that capacity could not be allocated.
const maxBatchCap = 1024

// batchesPerWorker bounds the batches waiting for a worker: beyond it the
// worker that pulls the sequence runs a batch itself instead of queueing
// it, so a fast sequence cannot fill memory ahead of slow bodies.
const batchesPerWorker = 2

// ForEachSeq calls body for every item of seq, possibly in parallel, and
// returns when all have returned. seq is pulled sequentially by the
// calling worker, which cuts it into batches of MinLen items (16 unless
// set, and at most MaxLen) and hands each batch to the pool as a task;
// when enough batches wait, it runs the next one itself. Items are
// visited in no particular order. A panic stops the pulling and is
// re-raised, as a *scheduler.Panic, after the running batches have
// returned.
func ForEachSeq[T any](w *scheduler.Worker, seq iter.Seq[T], body func(x T), opts ...Option) {
	checkFunc(body == nil, "ForEachSeq", "body")
	_ = ForEachSeqErr(context.Background(), w, seq, func(x T) error {
		body(x)
		return nil
	}, opts...)
}

// ForEachSeq2 is ForEachSeq for an iter.Seq2, such as maps.All.
func ForEachSeq2[K, V any](w *scheduler.Worker, seq iter.Seq2[K, V], body func(k K, v V), opts ...Option) {
	checkFunc(body == nil, "ForEachSeq2", "body")
	pairs := func(yield func(pair[K, V]) bool) {
		for k, v := range seq {
			if !yield(pair[K, V]{k, v}) {
				return
			}
		}
	}
	ForEachSeq(w, pairs, func(p pair[K, V]) { body(p.k, p.v) }, opts...)
}

// pair is one item of an iter.Seq2.
type pair[K, V any] struct {
	k K
	v V
}

// ForEachSeqErr is ForEachSeq for a body that can fail: after the first
// error (or once ctx is cancelled) no new item is pulled from seq (yield
// returns false at the next item) and no new batch starts; it returns
// that error once the running batches have returned. With ctx already
// cancelled it returns the context's cause without calling seq. A nil
// ctx never cancels.
func ForEachSeqErr[T any](ctx context.Context, w *scheduler.Worker, seq iter.Seq[T], body func(x T) error, opts ...Option) error {
	checkFunc(body == nil, "ForEachSeqErr", "body")
	checkWorker(w)
	if ctx == nil {
		ctx = context.Background()
	}
	if ctx.Err() != nil {
		return context.Cause(ctx) // before seq is called: it yields nothing
	}
	cfg := newConfig(opts)
	size := defaultBatch
	if cfg.setMin {
		size = cfg.minLen
	}
	// MaxLen bounds a batch as it bounds a chunk (MaxLen(1): a task per
	// item, for items that each cost a lot and unevenly), and MinLen wins
	// where the two disagree, as in the range loops.
	if cfg.maxLen > 0 {
		size = min(size, cfg.maxLen)
	}
	if cfg.setMin {
		size = max(size, cfg.minLen)
	}
	limit := int64(batchesPerWorker * w.Pool().Workers())
	return scope.Group(ctx, w, func(s *scope.Scope) error {
		var waiting atomic.Int64
		batchCap := min(size, maxBatchCap)
		batch := make([]T, 0, batchCap)
		flush := func() error {
			if s.Context().Err() != nil {
				// The group's first error, or the caller's cancellation.
				return context.Cause(s.Context())
			}
			if waiting.Load() >= limit {
				err := runBatch(batch, body)
				batch = batch[:0]
				return err
			}
			b := batch
			batch = make([]T, 0, batchCap)
			waiting.Add(1)
			s.Go(func(s *scope.Scope) error {
				waiting.Add(-1)
				if s.Context().Err() != nil {
					// Queued before the first error or the cancellation,
					// but not started: it must not start now.
					return context.Cause(s.Context())
				}
				return runBatch(b, body)
			})
			return nil
		}
		done := s.Context().Done()
		for x := range seq {
			select {
			case <-done:
				// Checked at every item, not only when a batch is full:
				// a long batch would take up to MinLen items more from
				// seq after the first error or the cancellation.
				return context.Cause(s.Context())
			default:
			}
			batch = append(batch, x)
			if len(batch) < size {
				continue
			}
			if err := flush(); err != nil {
				return err
			}
			if s.Context().Err() != nil {
				return context.Cause(s.Context())
			}
		}
		if len(batch) > 0 {
			return flush()
		}
		return nil
	})
}

// runBatch calls body on each item of b, stopping at the first error.
func runBatch[T any](b []T, body func(x T) error) error {
	for _, x := range b {
		if err := body(x); err != nil {
			return err
		}
	}
	return nil
}
