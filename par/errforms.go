package par

import (
	"context"

	"github.com/weftrt/weft/scheduler"
)

// Every loop shape has four forms, named by one rule: the shape (For,
// ForRange, ForEach, Map, ForEachSeq) for a body that cannot fail, run
// from a task with its *scheduler.Worker; Err after it for a body that
// returns an error, with a ctx first; On at the end for the same loop run
// from a goroutine outside the pool, with a ctx and a pool, and a body
// that gets no worker. So ForEach,
// ForEachErr, ForEachOn, ForEachErrOn. The Err forms stop handing out
// chunks after the first error or once ctx ends and return that error (or
// ctx's cause); the On forms return the pool's error too.

// ForEachErr is ForEach for a body that can fail, stopping and reporting
// ctx as ForErr does.
func ForEachErr[T any](ctx context.Context, w *scheduler.Worker, xs []T, body func(i int, x *T) error, opts ...Option) error {
	checkFunc(body == nil, "ForEachErr", "body")
	checkWorker(w)
	checkCtx(ctx, "ForEachErr")
	return ForErr(ctx, w, len(xs), func(i int) error { return body(i, &xs[i]) }, opts...)
}

// ForErrOn is ForErr from outside the pool.
func ForErrOn(ctx context.Context, p *scheduler.Pool, n int, body func(i int) error, opts ...Option) error {
	checkFunc(body == nil, "ForErrOn", "body")
	_, err := rangeOn(ctx, p, "ForErrOn", 0, n, opts, none{}, indexErrBody(body), nil)
	return err
}

// ForEachErrOn is ForEachErr from outside the pool.
func ForEachErrOn[T any](ctx context.Context, p *scheduler.Pool, xs []T, body func(i int, x *T) error, opts ...Option) error {
	checkFunc(body == nil, "ForEachErrOn", "body")
	checkCtx(ctx, "ForEachErrOn")
	return ForErrOn(ctx, p, len(xs), func(i int) error { return body(i, &xs[i]) }, opts...)
}

// MapErrOn is MapErr from outside the pool: nil and the error if the loop
// did not finish.
func MapErrOn[T, U any](ctx context.Context, p *scheduler.Pool, xs []T, f func(x T) (U, error), opts ...Option) ([]U, error) {
	checkFunc(f == nil, "MapErrOn", "f")
	checkCtx(ctx, "MapErrOn")
	return mapErr(xs, f, func(n int, body func(i int) error) error { return ForErrOn(ctx, p, n, body, opts...) })
}

// ReduceRangeErr is ReduceRange for a chunk that can fail: after the first
// error (or once ctx ends) no new chunk starts, and it returns R's zero
// value and that error (or ctx's cause), once the running chunks have
// returned.
func ReduceRangeErr[R any](ctx context.Context, w *scheduler.Worker, lo, hi int, identity R, chunk func(w *scheduler.Worker, lo, hi int) (R, error), combine func(a, b R) R, opts ...Option) (R, error) {
	checkFunc(chunk == nil, "ReduceRangeErr", "chunk")
	checkFunc(combine == nil, "ReduceRangeErr", "combine")
	checkWorker(w)
	checkCtx(ctx, "ReduceRangeErr")
	cfg := newConfig(opts) // first: bad options panic even for an empty range
	var zero R
	r, err := identity, error(nil)
	switch {
	case hi <= lo:
	case ctx.Err() != nil:
		err = context.Cause(ctx)
	case length(lo, hi) <= uint(cfg.inlineLen):
		inlineDo(func() { r, err = chunk(w, lo, hi) })
	default:
		l := &loop[chunkFunc[R], R]{combine: combine}
		l.k = func(w *scheduler.Worker, lo, hi int) R {
			r, err := chunk(w, lo, hi)
			if err != nil {
				l.fail(err)
			}
			return r
		}
		r, err = run(ctx, w, lo, hi, cfg, l.k, combine, l)
	}
	if err = ended(ctx, err); err != nil {
		return zero, err
	}
	return r, nil
}

// ReduceRangeErrOn is ReduceRangeErr from outside the pool, with a chunk
// that gets no worker, as ReduceRangeOn's.
func ReduceRangeErrOn[R any](ctx context.Context, p *scheduler.Pool, lo, hi int, identity R, chunk func(lo, hi int) (R, error), combine func(a, b R) R, opts ...Option) (R, error) {
	checkFunc(chunk == nil, "ReduceRangeErrOn", "chunk")
	checkFunc(combine == nil, "ReduceRangeErrOn", "combine")
	return rangeOn(ctx, p, "ReduceRangeErrOn", lo, hi, opts, identity, reduceErrChunk[R](chunk), combine)
}

// MapReduceErr is MapReduce for an f that can fail, stopping and
// reporting as ReduceRangeErr does.
func MapReduceErr[T, R any](ctx context.Context, w *scheduler.Worker, xs []T, identity R, f func(x T) (R, error), combine func(a, b R) R, opts ...Option) (R, error) {
	checkFunc(f == nil, "MapReduceErr", "f")
	checkFunc(combine == nil, "MapReduceErr", "combine")
	checkWorker(w)
	checkCtx(ctx, "MapReduceErr")
	return ReduceRangeErr(ctx, w, 0, len(xs), identity, foldMapErr(xs, identity, f, combine), combine, opts...)
}

// MapReduceErrOn is MapReduceErr from outside the pool.
func MapReduceErrOn[T, R any](ctx context.Context, p *scheduler.Pool, xs []T, identity R, f func(x T) (R, error), combine func(a, b R) R, opts ...Option) (R, error) {
	checkFunc(f == nil, "MapReduceErrOn", "f")
	checkFunc(combine == nil, "MapReduceErrOn", "combine")
	checkCtx(ctx, "MapReduceErrOn")
	fold := foldMapErr(xs, identity, f, combine)
	return ReduceRangeErrOn(ctx, p, 0, len(xs), identity, func(lo, hi int) (R, error) { return fold(nil, lo, hi) }, combine, opts...)
}

// foldMapErr is the chunk of the MapReduceErr forms: identity combined
// with f(x) for every x of the chunk, in order, up to the first error.
func foldMapErr[T, R any](xs []T, identity R, f func(x T) (R, error), combine func(a, b R) R) func(*scheduler.Worker, int, int) (R, error) {
	return func(_ *scheduler.Worker, lo, hi int) (R, error) {
		acc := identity
		for _, x := range xs[lo:hi] {
			v, err := f(x)
			if err != nil {
				return acc, err
			}
			acc = combine(acc, v)
		}
		return acc, nil
	}
}
