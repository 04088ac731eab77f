package par

import "github.com/weftrt/weft/scheduler"

// ReduceRange computes chunk over chunks that cover [lo, hi) and combines
// their results with combine, possibly in parallel, returning identity
// for an empty range. Chunks are combined in range order, as a tree:
// combine(a, b) always gets the result of a range in a and of the range
// just after it in b, so combine must be associative but need not be
// commutative (string concatenation works). identity is the result of an
// empty range and must satisfy combine(identity, x) == x; it is never
// passed to chunk.
func ReduceRange[R any](w *scheduler.Worker, lo, hi int, identity R, chunk func(w *scheduler.Worker, lo, hi int) R, combine func(a, b R) R, opts ...Option) R {
	checkFunc(chunk == nil, "ReduceRange", "chunk")
	checkFunc(combine == nil, "ReduceRange", "combine")
	checkWorker(w)
	cfg := newConfig(opts) // first: bad options panic even for an empty range
	if hi <= lo {
		return identity
	}
	if length(lo, hi) <= uint(cfg.inlineLen) {
		var r R
		inlineDo(func() { r = chunk(w, lo, hi) })
		return r
	}
	return reduceLong(w, lo, hi, cfg, chunkFunc[R](chunk), combine)
}

// MapReduce computes combine over f(x) for every x in xs, starting each
// chunk from identity, and returns identity for an empty xs. The order of
// combination is the order of xs, grouped as a tree (see ReduceRange).
// As every chunk starts from identity, it must be neutral
// (combine(identity, x) == x), or the result depends on how the loop was
// split.
func MapReduce[T, R any](w *scheduler.Worker, xs []T, identity R, f func(x T) R, combine func(a, b R) R, opts ...Option) R {
	checkFunc(f == nil, "MapReduce", "f")
	checkFunc(combine == nil, "MapReduce", "combine")
	checkWorker(w)
	cfg := newConfig(opts)
	if len(xs) <= cfg.inlineLen { // as in ForEach
		r := identity
		inlineDo(func() { r = foldMap(identity, xs, f, combine) })
		return r
	}
	return reduceLong(w, 0, len(xs), cfg, mapReduce[T, R]{xs, identity, f, combine}, combine)
}

// mapReduce is MapReduce's kernel: it combines identity with f(x) for
// every x of the chunk, in order.
type mapReduce[T, R any] struct {
	xs       []T
	identity R
	f        func(x T) R
	combine  func(a, b R) R
}

func (m mapReduce[T, R]) chunk(_ *scheduler.Worker, lo, hi int) R {
	return foldMap(m.identity, m.xs[lo:hi], m.f, m.combine)
}

// foldMap combines acc with f(x) for every x in xs, in order.
func foldMap[T, R any](acc R, xs []T, f func(x T) R, combine func(a, b R) R) R {
	for _, x := range xs {
		acc = combine(acc, f(x))
	}
	return acc
}

// Reduce combines the elements of xs with combine, in order, grouped as a
// tree (see ReduceRange); identity is the result for an empty xs.
func Reduce[T any](w *scheduler.Worker, xs []T, identity T, combine func(a, b T) T, opts ...Option) T {
	checkFunc(combine == nil, "Reduce", "combine")
	checkWorker(w)
	cfg := newConfig(opts) // first: bad options panic even for an empty xs
	if len(xs) == 0 {
		return identity
	}
	if len(xs) <= cfg.inlineLen { // as in ForEach
		var r T
		inlineDo(func() { r = fold(xs[0], xs[1:], combine) })
		return r
	}
	return reduceLong(w, 0, len(xs), cfg, reduction[T]{xs, combine}, combine)
}

// reduction is Reduce's kernel: it combines the elements of the chunk in
// order.
type reduction[T any] struct {
	xs      []T
	combine func(a, b T) T
}

func (r reduction[T]) chunk(_ *scheduler.Worker, lo, hi int) T {
	return fold(r.xs[lo], r.xs[lo+1:hi], r.combine)
}

// fold combines acc with every element of xs, in order.
func fold[T any](acc T, xs []T, combine func(a, b T) T) T {
	for _, x := range xs {
		acc = combine(acc, x)
	}
	return acc
}
