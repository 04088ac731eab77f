package par

import (
	"context"

	"github.com/weftrt/weft/scheduler"
)

// Every loop shape has four forms, named by one rule: the shape (For,
// ForRange, ForEach, Map, ForEachSeq) for a body that cannot fail, run
// from a task with its *scheduler.Worker; Err after it for a body that
// returns an error, with a ctx first; On at the end for the same loop run
// from a goroutine outside the pool, with a ctx and a pool. So ForEach,
// ForEachErr, ForEachOn, ForEachErrOn. The Err forms stop handing out
// chunks after the first error or once ctx ends and return that error (or
// ctx's cause); the On forms return the pool's error too.

// ForEachErr is ForEach for a body that can fail, stopping and reporting
// ctx as ForErr does.
func ForEachErr[T any](ctx context.Context, w *scheduler.Worker, xs []T, body func(i int, x *T) error, opts ...Option) error {
	checkFunc(body == nil, "ForEachErr", "body")
	return ForErr(ctx, w, len(xs), func(i int) error { return body(i, &xs[i]) }, opts...)
}

// ForErrOn is ForErr from outside the pool; it runs small loops on the
// calling goroutine, as ForOn does.
func ForErrOn(ctx context.Context, p *scheduler.Pool, n int, body func(i int) error, opts ...Option) error {
	checkFunc(body == nil, "ForErrOn", "body")
	ctx, cfg, err := startOn(ctx, p, opts)
	if err != nil || n <= 0 {
		return err
	}
	if n <= cfg.inlineLen {
		inlineDo(func() { err = indexErrFunc(body).chunk(nil, 0, n) })
		return ended(ctx, err)
	}
	return chunksOn(ctx, p, n, cfg, func(lo, hi int) error { return indexErrFunc(body).chunk(nil, lo, hi) })
}

// ForEachErrOn is ForEachErr from outside the pool.
func ForEachErrOn[T any](ctx context.Context, p *scheduler.Pool, xs []T, body func(i int, x *T) error, opts ...Option) error {
	checkFunc(body == nil, "ForEachErrOn", "body")
	return ForErrOn(ctx, p, len(xs), func(i int) error { return body(i, &xs[i]) }, opts...)
}

// MapErrOn is MapErr from outside the pool: nil and the error if the loop
// did not finish.
func MapErrOn[T, U any](ctx context.Context, p *scheduler.Pool, xs []T, f func(x T) (U, error), opts ...Option) ([]U, error) {
	checkFunc(f == nil, "MapErrOn", "f")
	return mapErr(xs, f, func(n int, body func(i int) error) error { return ForErrOn(ctx, p, n, body, opts...) })
}
