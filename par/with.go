package par

import "github.com/weftrt/weft/scheduler"

// The With forms are the chunk forms for loops so short or so frequent
// that an allocation counts. A chunk closure that captures variables (its
// slice, its output) is put on the heap by Go when it is passed to any
// loop form, because a thief on another goroutine may run it: about 20 ns,
// twice what a 16-element loop of cheap elements costs on its own. A With
// form takes the chunk's data as a value, env, and a function that gets it
// as a parameter; a function that captures nothing (a top-level function,
// or a function literal that uses only its parameters) costs no
// allocation, so a loop that is not split allocates nothing at all. This
// is the same trade as join.Call against join.Join.
//
// env is copied into the loop's shared state when the loop splits, so it
// should be small: a slice, a pointer, or a struct of a few of them. A
// function literal that refers to a variable of its enclosing function
// captures it, and is allocated again: pass the variable in env instead.
// From outside the pool, ForRangeWithOn and ReduceRangeWithOn are the
// same trade: an On form runs a loop too short to share on the calling
// goroutine, in a few nanoseconds more than the plain loop, and there the
// closure's allocation would be most of its cost.

// ForRangeWith is ForRange for a body that takes its data as env (the
// value forms, in the package doc): it calls body(w, env, lo, hi) on chunks that cover [lo, hi)
// exactly once, possibly in parallel.
func ForRangeWith[E any](w *scheduler.Worker, env E, lo, hi int, body func(w *scheduler.Worker, env E, lo, hi int), opts ...Option) {
	checkFunc(body == nil, "ForRangeWith", "body")
	checkWorker(w)
	cfg := newConfig(opts) // first: bad options panic even for an empty range
	if hi <= lo {
		return
	}
	if length(lo, hi) <= uint(cfg.inlineLen) {
		inlineDo(func() { body(w, env, lo, hi) })
		return
	}
	forLong(w, lo, hi, cfg, with[E]{env, body})
}

// with is ForRangeWith's kernel.
type with[E any] struct {
	env  E
	body func(w *scheduler.Worker, env E, lo, hi int)
}

func (x with[E]) chunk(w *scheduler.Worker, lo, hi int) none {
	x.body(w, x.env, lo, hi)
	return none{}
}

// ReduceRangeWith is ReduceRange for a chunk that takes its data as env
// (the value forms, in the package doc): it combines chunk(w, env, lo, hi) over chunks that cover
// [lo, hi), in range order, as ReduceRange does.
func ReduceRangeWith[E, R any](w *scheduler.Worker, env E, lo, hi int, identity R, chunk func(w *scheduler.Worker, env E, lo, hi int) R, combine func(a, b R) R, opts ...Option) R {
	checkFunc(chunk == nil, "ReduceRangeWith", "chunk")
	checkFunc(combine == nil, "ReduceRangeWith", "combine")
	checkWorker(w)
	cfg := newConfig(opts) // first: bad options panic even for an empty range
	if hi <= lo {
		return identity
	}
	if length(lo, hi) <= uint(cfg.inlineLen) {
		var r R
		inlineDo(func() { r = chunk(w, env, lo, hi) })
		return r
	}
	return reduceLong(w, lo, hi, cfg, withResult[E, R]{env, chunk}, combine)
}

// withResult is ReduceRangeWith's kernel.
type withResult[E, R any] struct {
	env E
	fn  func(w *scheduler.Worker, env E, lo, hi int) R
}

func (x withResult[E, R]) chunk(w *scheduler.Worker, lo, hi int) R { return x.fn(w, x.env, lo, hi) }
