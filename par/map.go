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
	cfg := newConfig(opts)
	out := make([]U, len(xs))
	if len(xs) <= cfg.inlineLen { // before the chunk closure, which escapes
		inlineDo(func() {
			for i, x := range xs {
				out[i] = f(x)
			}
		})
		return out
	}
	forRange(w, 0, len(xs), cfg, func(_ *scheduler.Worker, lo, hi int) {
		for i := lo; i < hi; i++ {
			out[i] = f(xs[i])
		}
	})
	return out
}

// MapErr is Map for an f that can fail: after the first error (or once
// ctx is cancelled) no new chunk starts, and MapErr returns nil and that
// error.
func MapErr[T, U any](ctx context.Context, w *scheduler.Worker, xs []T, f func(x T) (U, error), opts ...Option) ([]U, error) {
	checkFunc(f == nil, "MapErr", "f")
	out := make([]U, len(xs))
	err := ForErr(ctx, w, len(xs), func(i int) error {
		var err error
		out[i], err = f(xs[i])
		return err
	}, opts...)
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
	if len(xs) <= cfg.inlineLen { // before the chunk closure, which escapes
		var kept []T
		inlineDo(func() { kept = keepIn(xs, keep) })
		return kept
	}
	return reduceRange(w, 0, len(xs), nil, cfg, func(_ *scheduler.Worker, lo, hi int) []T {
		return keepIn(xs[lo:hi], keep)
	}, concat[T])
}

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
