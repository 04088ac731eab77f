package par

import (
	"context"
	"errors"
	"iter"

	"github.com/weftrt/weft/scheduler"
)

// The On forms run a loop from a goroutine outside the pool, as join.On
// and scope.GroupOn do: on a worker of p (nil means scheduler.Default()),
// blocking the caller until the loop is done. Those whose body gets no
// worker (ForOn, ForErrOn, ForEachOn, ForEachErrOn, MapOn, MapErrOn) run
// a loop too small to share on the calling goroutine instead, without
// entering the pool (see chunksOn). They return
// scheduler.ErrClosed if p is shutting down, and ctx's cause if ctx is
// cancelled: before the loop starts (it does not start, even if it is
// empty: also while it waits for a slot or a free worker), or while it
// runs (no new chunk starts), up to its end (a ctx that ends in the last
// chunk is reported too). Panics propagate as in the forms they wrap; a
// nil function, a nil sequence and options that do not go together
// (MinLen over MaxLen) panic on the caller's goroutine, before the loop
// is handed to the pool.

// ForRangeOn is ForRange from outside the pool.
func ForRangeOn(ctx context.Context, p *scheduler.Pool, lo, hi int, body func(w *scheduler.Worker, lo, hi int), opts ...Option) error {
	checkFunc(body == nil, "ForRangeOn", "body")
	checkOptions(opts)
	return on(ctx, p, func(w *scheduler.Worker) error {
		return ForRangeErr(ctx, w, lo, hi, func(w *scheduler.Worker, lo, hi int) error {
			body(w, lo, hi)
			return nil
		}, opts...)
	})
}

// ForOn is For from outside the pool. A loop whose whole work is less
// than entering the pool costs runs on the calling goroutine (see
// chunksOn).
func ForOn(ctx context.Context, p *scheduler.Pool, n int, body func(i int), opts ...Option) error {
	checkFunc(body == nil, "ForOn", "body")
	ctx, cfg, err := startOn(ctx, p, opts)
	if err != nil || n <= 0 {
		return err
	}
	if n <= cfg.inlineLen {
		inlineDo(func() {
			for i := range n {
				body(i)
			}
		})
		return ended(ctx, nil)
	}
	return chunksOn(ctx, p, n, cfg, func(lo, hi int) error {
		for i := lo; i < hi; i++ {
			body(i)
		}
		return nil
	})
}

// ForEachOn is ForEach from outside the pool; it runs small loops on the
// calling goroutine, as ForOn does.
func ForEachOn[T any](ctx context.Context, p *scheduler.Pool, xs []T, body func(i int, x *T), opts ...Option) error {
	checkFunc(body == nil, "ForEachOn", "body")
	ctx, cfg, err := startOn(ctx, p, opts)
	if err != nil || len(xs) == 0 {
		return err
	}
	if len(xs) <= cfg.inlineLen {
		inlineDo(func() {
			for i := range xs {
				body(i, &xs[i])
			}
		})
		return ended(ctx, nil)
	}
	return chunksOn(ctx, p, len(xs), cfg, func(lo, hi int) error {
		for i := lo; i < hi; i++ {
			body(i, &xs[i])
		}
		return nil
	})
}

// ForRangeErrOn is ForRangeErr from outside the pool.
func ForRangeErrOn(ctx context.Context, p *scheduler.Pool, lo, hi int, body func(w *scheduler.Worker, lo, hi int) error, opts ...Option) error {
	checkFunc(body == nil, "ForRangeErrOn", "body")
	checkOptions(opts)
	return on(ctx, p, func(w *scheduler.Worker) error { return ForRangeErr(ctx, w, lo, hi, body, opts...) })
}

// MapOn is Map from outside the pool; it returns nil and the error if the
// loop did not finish. It runs small loops on the calling goroutine, as
// ForOn does.
func MapOn[T, U any](ctx context.Context, p *scheduler.Pool, xs []T, f func(x T) U, opts ...Option) ([]U, error) {
	checkFunc(f == nil, "MapOn", "f")
	ctx, cfg, err := startOn(ctx, p, opts)
	if err != nil {
		return nil, err
	}
	out := make([]U, len(xs))
	if len(xs) <= cfg.inlineLen {
		inlineDo(func() {
			for i, x := range xs {
				out[i] = f(x)
			}
		})
	} else {
		err = chunksOn(ctx, p, len(xs), cfg, func(lo, hi int) error {
			for i := lo; i < hi; i++ {
				out[i] = f(xs[i])
			}
			return nil
		})
	}
	if err = ended(ctx, err); err != nil {
		return nil, err
	}
	return out, nil
}

// ReduceRangeOn is ReduceRange from outside the pool.
func ReduceRangeOn[R any](ctx context.Context, p *scheduler.Pool, lo, hi int, identity R, chunk func(w *scheduler.Worker, lo, hi int) R, combine func(a, b R) R, opts ...Option) (R, error) {
	checkFunc(chunk == nil, "ReduceRangeOn", "chunk")
	checkFunc(combine == nil, "ReduceRangeOn", "combine") // the loop machinery reads a nil combine as "no result"
	checkOptions(opts)
	return reduceOn(ctx, p, lo, hi, identity, chunkFunc[R](chunk), combine, opts)
}

// MapReduceOn is MapReduce from outside the pool.
func MapReduceOn[T, R any](ctx context.Context, p *scheduler.Pool, xs []T, identity R, f func(x T) R, combine func(a, b R) R, opts ...Option) (R, error) {
	checkFunc(f == nil, "MapReduceOn", "f")
	checkFunc(combine == nil, "MapReduceOn", "combine")
	checkOptions(opts)
	return reduceOn(ctx, p, 0, len(xs), identity, mapReduce[T, R]{xs, identity, f, combine}, combine, opts)
}

// reduceOn runs k over [lo, hi) on a worker of p.
func reduceOn[K kernel[R], R any](ctx context.Context, p *scheduler.Pool, lo, hi int, identity R, k K, combine func(a, b R) R, opts []Option) (R, error) {
	if ctx == nil {
		ctx = context.Background() // as on does; run needs one
	}
	r := identity
	err := on(ctx, p, func(w *scheduler.Worker) error {
		if hi <= lo {
			return ended(ctx, nil) // as the other loops report an empty one
		}
		var err error
		r, err = run(ctx, w, lo, hi, newConfig(opts), k, combine, nil)
		return err
	})
	return r, err
}

// ForEachSeqOn is ForEachSeq from outside the pool.
func ForEachSeqOn[T any](ctx context.Context, p *scheduler.Pool, seq iter.Seq[T], body func(x T), opts ...Option) error {
	checkFunc(seq == nil, "ForEachSeqOn", "seq")
	checkFunc(body == nil, "ForEachSeqOn", "body")
	checkOptions(opts)
	return on(ctx, p, func(w *scheduler.Worker) error {
		return ForEachSeqErr(ctx, w, seq, func(x T) error { body(x); return nil }, opts...)
	})
}

// ForEachSeqErrOn is ForEachSeqErr from outside the pool.
func ForEachSeqErrOn[T any](ctx context.Context, p *scheduler.Pool, seq iter.Seq[T], body func(x T) error, opts ...Option) error {
	checkFunc(seq == nil, "ForEachSeqErrOn", "seq")
	checkFunc(body == nil, "ForEachSeqErrOn", "body")
	checkOptions(opts)
	return on(ctx, p, func(w *scheduler.Worker) error { return ForEachSeqErr(ctx, w, seq, body, opts...) })
}

// on runs f on a worker of p and returns the pool's error or f's.
func on(ctx context.Context, p *scheduler.Pool, f func(w *scheduler.Worker) error) error {
	if p == nil {
		p = scheduler.Default()
	}
	if ctx == nil {
		ctx = context.Background()
	}
	var err error
	start := func(w *scheduler.Worker) {
		// Run checks ctx only until the task is queued, and it may end
		// while the task waits for a busy worker. The loops check it as
		// they start and as they end, even an empty one; this check
		// keeps that true of any f, and spares a loop that never starts
		// the cost of setting up.
		if ctx.Err() != nil {
			err = context.Cause(ctx)
			return
		}
		err = f(w)
	}
	if runErr := p.Run(ctx, start); runErr != nil {
		// A supplier may wrap ctx.Err(): it is still the cancellation.
		if ctxErr := ctx.Err(); ctxErr != nil && errors.Is(runErr, ctxErr) {
			return context.Cause(ctx) // as the loop itself reports a cancellation
		}
		return runErr
	}
	return err
}
