package par

import (
	"context"
	"iter"

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
// worker that pulls the sequence runs the oldest waiting batch itself
// before it queues the next, so a fast sequence cannot fill memory ahead
// of slow bodies, and the first batches run first.
const batchesPerWorker = 2

// ForEachSeq calls body for every item of seq, possibly in parallel, and
// returns when all have returned. seq is pulled sequentially by the
// calling worker, which cuts it into batches of MinLen items (16 unless
// set, and at most MaxLen) and hands each batch to the pool as a task;
// when enough batches wait, it runs the oldest of them itself. Items are
// visited in no particular order. A panic stops the pulling and is
// re-raised, as a *scheduler.Panic, after the running batches have
// returned.
func ForEachSeq[T any](w *scheduler.Worker, seq iter.Seq[T], body func(x T), opts ...Option) {
	checkFunc(seq == nil, "ForEachSeq", "seq")
	checkFunc(body == nil, "ForEachSeq", "body")
	_ = ForEachSeqErr(context.Background(), w, seq, func(x T) error {
		body(x)
		return nil
	}, opts...)
}

// ForEachSeq2 is ForEachSeq for an iter.Seq2, such as maps.All.
func ForEachSeq2[K, V any](w *scheduler.Worker, seq iter.Seq2[K, V], body func(k K, v V), opts ...Option) {
	checkFunc(seq == nil, "ForEachSeq2", "seq")
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
// that error (or the context's cause) once the running batches have
// returned. Since the oldest waiting batch runs first, the batch of a
// failing item starts before 2 × workers more batches are pulled, on any
// number of workers, so a failure stops even a sequence that never ends,
// and the pulling stops at the next item once the item has failed. A ctx
// that ends at any time before ForEachSeqErr returns is reported, even in
// the last batch; with ctx already ended it returns the context's cause
// without calling seq.
func ForEachSeqErr[T any](ctx context.Context, w *scheduler.Worker, seq iter.Seq[T], body func(x T) error, opts ...Option) error {
	checkFunc(seq == nil, "ForEachSeqErr", "seq")
	checkFunc(body == nil, "ForEachSeqErr", "body")
	checkWorker(w)
	checkCtx(ctx, "ForEachSeqErr")
	cfg := newConfig(opts) // first: bad options panic even with ctx ended
	if ctx.Err() != nil {
		return context.Cause(ctx) // before seq is called: it yields nothing
	}
	// MaxLen bounds a batch as it bounds a chunk (MaxLen(1): a task per
	// item, for items that each cost a lot and unevenly); MinLen, which
	// is never more than MaxLen, sets it.
	size := defaultBatch
	if cfg.maxLen > 0 {
		size = min(size, cfg.maxLen)
	}
	if cfg.setMin {
		size = cfg.minLen
	}
	limit := batchesPerWorker * w.Pool().Workers()
	err := scope.Group(ctx, w, func(s *scope.Scope) error {
		return pull(s, seq, body, size, limit)
	})
	return ended(ctx, err)
}

// pull is ForEachSeqErr's group body: it cuts seq into batches of size
// items and hands them to the pool through a queue of at most limit
// waiting batches.
//
// The queue is first in, first out, and the tasks spawned with the
// batches are interchangeable: each takes the oldest waiting batch when
// it starts, not the batch it was spawned with. When limit batches wait,
// the pulling worker runs the oldest itself, then queues the new one.
// So every batch starts after at most limit newer ones have been pulled,
// whoever runs it. Before, the pulling worker ran the newest batch when
// the queue was full and left the older ones to other workers: on a
// one-worker pool, or one whose other workers were busy, the first
// batches waited until the sequence ended, and a failure in them did not
// stop an endless one.
func pull[T any](s *scope.Scope, seq iter.Seq[T], body func(x T) error, size, limit int) error {
	// waiting holds the batches queued and not yet started, oldest first.
	// Only the pulling worker sends to it, so after it takes a batch out,
	// its next send finds room. Each send spawns one task, so tasks never
	// number fewer than the batches waiting: none is left behind.
	waiting := make(chan []T, limit)
	runOldest := func(s *scope.Scope) error {
		if s.Context().Err() != nil {
			// Queued before the first error or the cancellation, but
			// not started: it must not start now.
			return context.Cause(s.Context())
		}
		select {
		case b := <-waiting:
			return runBatch(b, body)
		default:
			return nil // the pulling worker ran it
		}
	}
	batchCap := min(size, maxBatchCap)
	batch := make([]T, 0, batchCap)
	flush := func() error {
		var spare []T // a batch this worker ran: its array takes the next items
		for {
			if s.Context().Err() != nil {
				// The group's first error, or the caller's cancellation.
				return context.Cause(s.Context())
			}
			select {
			case waiting <- batch:
				s.Go(runOldest)
				if spare != nil {
					batch = spare[:0]
				} else {
					batch = make([]T, 0, batchCap)
				}
				return nil
			default: // limit batches wait
			}
			select {
			case old := <-waiting:
				if err := runBatch(old, body); err != nil {
					return err
				}
				spare = old
			default: // other workers took them meanwhile
			}
		}
	}
	done := s.Context().Done()
	for x := range seq {
		select {
		case <-done:
			// Checked at every item, not only when a batch is full: a
			// long batch would take up to MinLen items more from seq
			// after the first error or the cancellation.
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
