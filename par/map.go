package par

import (
	"context"

	"github.com/weftrt/weft/scheduler"
)

// Map returns a new slice holding f(x) for every x in xs, in the order of
// xs, computed possibly in parallel. Each chunk writes its own part of the
// result, so no ordering work is needed afterwards.
func Map[T, U any](w *scheduler.Worker, xs []T, f func(x T) U, opts ...Option) []U {
	checkFunc(f == nil, "Map", "f")
	checkWorker(w)
	out := make([]U, len(xs))
	cfg := newConfig(opts)
	if len(xs) <= cfg.inlineLen { // the loop itself, as in ForEach
		inlineDo(func() {
			for i, x := range xs {
				out[i] = f(x)
			}
		})
		return out
	}
	forLong(w, 0, len(xs), cfg, mapping[T, U]{xs, out, f})
	return out
}

// mapping is Map's kernel.
type mapping[T, U any] struct {
	xs  []T
	out []U
	f   func(x T) U
}

func (m mapping[T, U]) chunk(_ *scheduler.Worker, lo, hi int) none {
	for i := lo; i < hi; i++ {
		m.out[i] = m.f(m.xs[i])
	}
	return none{}
}

// MapErr is Map for an f that can fail: after the first error (or once
// ctx is cancelled) no new chunk starts, and MapErr returns nil and that
// error (or the context's cause). It reports ctx as ForErr does: a ctx
// that ends before MapErr returns, even in the last chunk, is reported.
func MapErr[T, U any](ctx context.Context, w *scheduler.Worker, xs []T, f func(x T) (U, error), opts ...Option) ([]U, error) {
	checkFunc(f == nil, "MapErr", "f")
	checkWorker(w)
	checkCtx(ctx, "MapErr")
	return mapErr(xs, f, func(n int, body func(i int) error) error { return ForErr(ctx, w, n, body, opts...) })
}

// mapErr runs f over xs with loop (ForErr on a worker, or ForErrOn) and
// returns the results, or nil and the loop's error.
func mapErr[T, U any](xs []T, f func(x T) (U, error), loop func(n int, body func(i int) error) error) ([]U, error) {
	out := make([]U, len(xs))
	err := loop(len(xs), func(i int) error {
		var err error
		out[i], err = f(xs[i])
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Filter returns the elements of xs for which keep returns true, in the
// order of xs. Each chunk collects its own survivors and adjacent chunks
// are concatenated as they are combined, so an element may be copied once
// per level of the split tree (a few times, logarithmic in the number of
// chunks).
func Filter[T any](w *scheduler.Worker, xs []T, keep func(x T) bool, opts ...Option) []T {
	checkFunc(keep == nil, "Filter", "keep")
	checkWorker(w)
	cfg := newConfig(opts)
	if len(xs) <= cfg.inlineLen { // as in ForEach
		var kept []T
		inlineDo(func() { kept = keepIn(xs, keep) })
		return kept
	}
	return reduceLong(w, 0, len(xs), cfg, filter[T]{xs, keep}, concat[T])
}

// filter is Filter's kernel.
type filter[T any] struct {
	xs   []T
	keep func(x T) bool
}

func (f filter[T]) chunk(_ *scheduler.Worker, lo, hi int) []T { return keepIn(f.xs[lo:hi], f.keep) }

// keepIn returns the elements of xs for which keep returns true, in a new
// slice (nil if none).
func keepIn[T any](xs []T, keep func(x T) bool) []T {
	var kept []T
	for _, x := range xs {
		if keep(x) {
			kept = append(kept, x)
		}
	}
	return kept
}

// concat appends b to a. a is the left half's own slice, which nothing
// else holds, so appending in place is safe.
func concat[T any](a, b []T) []T { return append(a, b...) }
