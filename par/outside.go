package par

import (
	"context"
	"iter"

	"github.com/weftrt/weft/scheduler"
)

// The On forms run a loop from a goroutine outside the pool: with a ctx
// and a pool first (nil means scheduler.Default()), a body that gets no
// worker, and an error for what kept the loop from finishing. They block
// the caller until the loop is done, and run a loop too small to share on
// the calling goroutine, without entering the pool (see rangeOn). They
// return scheduler.ErrClosed if p is shutting down, and ctx's cause if ctx
// ends: before the loop starts (it does not start, even if it is empty:
// also while it waits for a slot or a free worker), or while it runs (no
// new chunk starts), up to its end (a ctx that ends in the last chunk is
// reported too). Panics propagate as in the forms they mirror; a nil ctx,
// a nil function, a nil sequence and options that do not go together
// (MinLen over MaxLen) panic on the caller's goroutine, before anything
// runs. A body that needs a worker (to nest a loop or a join in a chunk)
// is a task: run it with scheduler.Pool.Run and call the in-pool form.

// ForRangeOn is ForRange from outside the pool: body(lo, hi) for chunks
// that together cover [lo, hi).
func ForRangeOn(ctx context.Context, p *scheduler.Pool, lo, hi int, body func(lo, hi int), opts ...Option) error {
	checkFunc(body == nil, "ForRangeOn", "body")
	_, err := rangeOn(ctx, p, "ForRangeOn", lo, hi, opts, none{}, rangeBody(body), nil)
	return err
}

// ForRangeErrOn is ForRangeErr from outside the pool.
func ForRangeErrOn(ctx context.Context, p *scheduler.Pool, lo, hi int, body func(lo, hi int) error, opts ...Option) error {
	checkFunc(body == nil, "ForRangeErrOn", "body")
	_, err := rangeOn(ctx, p, "ForRangeErrOn", lo, hi, opts, none{}, rangeErrBody(body), nil)
	return err
}

// ForOn is For from outside the pool.
func ForOn(ctx context.Context, p *scheduler.Pool, n int, body func(i int), opts ...Option) error {
	checkFunc(body == nil, "ForOn", "body")
	_, err := rangeOn(ctx, p, "ForOn", 0, n, opts, none{}, indexBody(body), nil)
	return err
}

// ForEachOn is ForEach from outside the pool.
func ForEachOn[T any](ctx context.Context, p *scheduler.Pool, xs []T, body func(i int, x *T), opts ...Option) error {
	checkFunc(body == nil, "ForEachOn", "body")
	_, err := rangeOn(ctx, p, "ForEachOn", 0, len(xs), opts, none{}, eachBody[T]{xs, body}, nil)
	return err
}

// MapOn is Map from outside the pool; it returns nil and the error if the
// loop did not finish.
func MapOn[T, U any](ctx context.Context, p *scheduler.Pool, xs []T, f func(x T) U, opts ...Option) ([]U, error) {
	checkFunc(f == nil, "MapOn", "f")
	out := make([]U, len(xs))
	_, err := rangeOn(ctx, p, "MapOn", 0, len(xs), opts, none{}, mapBody[T, U]{xs, out, f}, nil)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// ReduceRangeOn is ReduceRange from outside the pool: chunk(lo, hi) for
// chunks that together cover [lo, hi), their results combined in order;
// identity for an empty range. On an error it returns R's zero value.
func ReduceRangeOn[R any](ctx context.Context, p *scheduler.Pool, lo, hi int, identity R, chunk func(lo, hi int) R, combine func(a, b R) R, opts ...Option) (R, error) {
	checkFunc(chunk == nil, "ReduceRangeOn", "chunk")
	checkFunc(combine == nil, "ReduceRangeOn", "combine")
	return rangeOn(ctx, p, "ReduceRangeOn", lo, hi, opts, identity, reduceChunk[R](chunk), combine)
}

// MapReduceOn is MapReduce from outside the pool.
func MapReduceOn[T, R any](ctx context.Context, p *scheduler.Pool, xs []T, identity R, f func(x T) R, combine func(a, b R) R, opts ...Option) (R, error) {
	checkFunc(f == nil, "MapReduceOn", "f")
	checkFunc(combine == nil, "MapReduceOn", "combine")
	return rangeOn(ctx, p, "MapReduceOn", 0, len(xs), opts, identity, foldBody[T, R]{xs, identity, f, combine}, combine)
}

// ForEachSeqOn is ForEachSeq from outside the pool. It always enters the
// pool: the sequence is pulled on a worker.
func ForEachSeqOn[T any](ctx context.Context, p *scheduler.Pool, seq iter.Seq[T], body func(x T), opts ...Option) error {
	checkFunc(body == nil, "ForEachSeqOn", "body")
	checkCtx(ctx, "ForEachSeqOn")
	return ForEachSeqErrOn(ctx, p, seq, func(x T) error { body(x); return nil }, opts...)
}

// ForEachSeqErrOn is ForEachSeqErr from outside the pool.
func ForEachSeqErrOn[T any](ctx context.Context, p *scheduler.Pool, seq iter.Seq[T], body func(x T) error, opts ...Option) error {
	checkFunc(seq == nil, "ForEachSeqErrOn", "seq")
	checkFunc(body == nil, "ForEachSeqErrOn", "body")
	if err := startOn(ctx, p, "ForEachSeqErrOn", opts); err != nil {
		return err
	}
	if p == nil {
		p = scheduler.Default()
	}
	return p.Run(ctx, func(w *scheduler.Worker) error { return ForEachSeqErr(ctx, w, seq, body, opts...) })
}
