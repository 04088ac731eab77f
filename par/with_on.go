package par

import (
	"context"

	"github.com/weftrt/weft/scheduler"
)

// ForRangeWithOn is ForRangeWith from outside the pool: it calls
// body(env, lo, hi) on chunks that cover [lo, hi) exactly once, possibly
// in parallel, and returns what kept the loop from finishing, as
// ForRangeOn does. It is for small loops in hot code: a closure that
// captures the loop's data costs a heap allocation on every call, more
// than a 16-element loop of cheap elements, while a body that captures
// nothing (a top-level function, or a literal that uses only its
// parameters) with the data passed as env costs none, and a loop short
// enough to run on the calling goroutine allocates nothing at all. env is
// copied when the loop splits: keep it small (a slice, a pointer, a
// struct of a few).
func ForRangeWithOn[E any](ctx context.Context, p *scheduler.Pool, env E, lo, hi int, body func(env E, lo, hi int), opts ...Option) error {
	checkFunc(body == nil, "ForRangeWithOn", "body")
	x := withOn[E]{env, body}
	if shortOn(ctx, lo, hi, opts) {
		_, err := onCaller(ctx, p, runWithOn[E], x, lo, hi)
		return err
	}
	_, err := rangeOn(ctx, p, "ForRangeWithOn", lo, hi, opts, none{}, x, nil)
	return err
}

// withOn is ForRangeWithOn's kernel.
type withOn[E any] struct {
	env  E
	body func(env E, lo, hi int)
}

func (x withOn[E]) chunk(lo, hi int) (none, error) { return runWithOn(x, lo, hi), nil }

func (withOn[E]) infallible() bool { return true }

// runWithOn runs x's body over [lo, hi).
func runWithOn[E any](x withOn[E], lo, hi int) none {
	x.body(x.env, lo, hi)
	return none{}
}

// ReduceRangeWithOn is ReduceRangeWith from outside the pool: it combines
// chunk(env, lo, hi) over chunks that cover [lo, hi), in range order, and
// returns identity for an empty range, or R's zero value and what kept
// the loop from finishing, as ReduceRangeOn does. A chunk function that
// captures nothing costs no allocation; see ForRangeWithOn for when to
// use it.
func ReduceRangeWithOn[E, R any](ctx context.Context, p *scheduler.Pool, env E, lo, hi int, identity R, chunk func(env E, lo, hi int) R, combine func(a, b R) R, opts ...Option) (R, error) {
	checkFunc(chunk == nil, "ReduceRangeWithOn", "chunk")
	checkFunc(combine == nil, "ReduceRangeWithOn", "combine")
	if shortOn(ctx, lo, hi, opts) {
		return zeroOnError(onCaller(ctx, p, chunk, env, lo, hi))
	}
	return rangeOn(ctx, p, "ReduceRangeWithOn", lo, hi, opts, identity, withResultOn[E, R]{env, chunk}, combine)
}

// withResultOn is the With On forms' kernel.
type withResultOn[E, R any] struct {
	env E
	fn  func(env E, lo, hi int) R
}

func (x withResultOn[E, R]) chunk(lo, hi int) (R, error) { return x.fn(x.env, lo, hi), nil }

func (withResultOn[E, R]) infallible() bool { return true }
