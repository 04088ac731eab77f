package par

import (
	"context"

	"github.com/weftrt/weft/scheduler"
)

// ForRange calls body on chunks that cover [lo, hi) exactly once, possibly
// in parallel, and returns when all have returned. It is the form for hot
// loops: body gets a whole chunk [lo, hi) and iterates it itself, so the
// per-element cost is the body's own loop. body also gets the worker that
// runs the chunk, which a nested loop (or join, or scope) inside it must
// use: the chunk forms are how loops nest. A range of at most MinLen
// elements (DefaultInlineLen unless set) runs inline, as one chunk; see
// docs/loops.md for how longer ones are cut.
//
// A panic in body is re-raised as a *scheduler.Panic once the chunks
// already running have returned; no new chunk starts after it.
//
// w is the current worker, which must not be nil; a goroutine outside the
// pool calls ForRangeOn.
func ForRange(w *scheduler.Worker, lo, hi int, body func(w *scheduler.Worker, lo, hi int), opts ...Option) {
	checkFunc(body == nil, "ForRange", "body")
	checkWorker(w)
	cfg := newConfig(opts) // first: bad options panic even for an empty range
	if hi <= lo {
		return
	}
	if length(lo, hi) <= uint(cfg.inlineLen) {
		inlineRange(w, body, lo, hi)
		return
	}
	forLong(w, lo, hi, cfg, bodyFunc(body))
}

// For calls body(i) for every i in [0, n), possibly in parallel. It is
// ForRange with the loop written for you; prefer ForRange when the body
// is a few nanoseconds, where a call per element is most of the cost.
func For(w *scheduler.Worker, n int, body func(i int), opts ...Option) {
	checkFunc(body == nil, "For", "body")
	checkWorker(w)
	cfg, k := newConfig(opts), indexFunc(body)
	if n <= cfg.inlineLen {
		inlineDo(func() { k.chunk(w, 0, n) })
		return
	}
	forLong(w, 0, n, cfg, k)
}

// indexFunc is For's kernel: the caller's body.
type indexFunc func(i int)

func (body indexFunc) chunk(_ *scheduler.Worker, lo, hi int) none {
	for i := lo; i < hi; i++ {
		body(i)
	}
	return none{}
}

// ForEach calls body(i, &xs[i]) for every element of xs, possibly in
// parallel. The pointer lets body update the element in place and saves
// copying large elements; body must not keep it past its return if xs may
// be reused.
func ForEach[T any](w *scheduler.Worker, xs []T, body func(i int, x *T), opts ...Option) {
	checkFunc(body == nil, "ForEach", "body")
	checkWorker(w)
	cfg := newConfig(opts)
	if len(xs) <= cfg.inlineLen {
		// The loop itself rather than k.chunk: a method of a generic
		// type costs 20-30% more here (a call, and its receiver copied).
		inlineDo(func() {
			for i := range xs {
				body(i, &xs[i])
			}
		})
		return
	}
	forLong(w, 0, len(xs), cfg, each[T]{xs, body})
}

// each is ForEach's kernel.
type each[T any] struct {
	xs   []T
	body func(i int, x *T)
}

func (e each[T]) chunk(_ *scheduler.Worker, lo, hi int) none {
	for i := lo; i < hi; i++ {
		e.body(i, &e.xs[i])
	}
	return none{}
}

// ForRangeErr is ForRange for a body that can fail. After the first error
// (or once ctx is cancelled) no new chunk starts; ForRangeErr waits for
// the chunks already running and returns that error (or the context's
// cause). A ctx that ends at any time before ForRangeErr returns is
// reported, even in the last chunk, when no chunk is left to stop, and
// for an empty range; an error of body's recorded first wins.
func ForRangeErr(ctx context.Context, w *scheduler.Worker, lo, hi int, body func(w *scheduler.Worker, lo, hi int) error, opts ...Option) error {
	checkFunc(body == nil, "ForRangeErr", "body")
	checkWorker(w)
	checkCtx(ctx, "ForRangeErr")
	cfg := newConfig(opts) // first: bad options panic even for an empty range
	if hi <= lo {
		return ended(ctx, nil)
	}
	if length(lo, hi) <= uint(cfg.inlineLen) {
		if ctx.Err() != nil {
			return context.Cause(ctx)
		}
		var err error
		inlineDo(func() { err = body(w, lo, hi) })
		return ended(ctx, err)
	}
	l := &loop[chunkFunc[none], none]{}
	l.k = func(w *scheduler.Worker, lo, hi int) none {
		if err := body(w, lo, hi); err != nil {
			l.fail(err)
		}
		return none{}
	}
	_, err := run(ctx, w, lo, hi, cfg, l.k, nil, l)
	return err
}

// ForErr is For for a body that can fail, stopping and reporting ctx as
// ForRangeErr does. Within a chunk it stops at the element that failed,
// and before every element once another chunk has failed.
func ForErr(ctx context.Context, w *scheduler.Worker, n int, body func(i int) error, opts ...Option) error {
	checkFunc(body == nil, "ForErr", "body")
	checkWorker(w)
	checkCtx(ctx, "ForErr")
	cfg := newConfig(opts)
	if n <= cfg.inlineLen {
		if n <= 0 {
			return ended(ctx, nil)
		}
		if ctx.Err() != nil {
			return context.Cause(ctx)
		}
		var err error
		inlineDo(func() { err = indexErrFunc(body).chunk(w, 0, n) })
		return ended(ctx, err)
	}
	l := &loop[chunkFunc[none], none]{}
	l.k = func(_ *scheduler.Worker, lo, hi int) none {
		for i := lo; i < hi && !l.stop.Load(); i++ {
			if err := body(i); err != nil {
				l.fail(err)
				break
			}
		}
		return none{}
	}
	_, err := run(ctx, w, 0, n, cfg, l.k, nil, l)
	return err
}

// indexErrFunc is the kernel of a ForErr short enough to run inline:
// body(i) for every i of the chunk, up to the first error, which it
// returns.
type indexErrFunc func(i int) error

func (body indexErrFunc) chunk(_ *scheduler.Worker, lo, hi int) error {
	for i := lo; i < hi; i++ {
		if err := body(i); err != nil {
			return err
		}
	}
	return nil
}
