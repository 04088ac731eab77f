package par

import (
	"context"

	"github.com/weftrt/weft/internal/core"
	"github.com/weftrt/weft/scheduler"
)

// The On forms' bodies get no worker, so a chunk can run anywhere: on a
// worker of the pool, or on the calling goroutine. A loop too small to
// share runs on the caller and never enters the pool, since entering
// costs a wake-up and a hand-off, over a microsecond, a hundred times a
// loop of sixteen cheap elements. The decision is the one a loop makes
// inside the pool (docs/loops.md, How a loop is cut), made on the caller:
// a loop of at most the inline length runs at once, with no clock read; a
// longer one runs the probe's pieces here, and if the rest, at the cost
// per element seen, is less than inlineWork, runs the rest here too.
// Otherwise the rest, with the cost the probe saw, goes to the pool, where
// it is split at once. A loop of few but expensive elements is not
// serialised: the probe's first piece is one element, and the rest of
// such a loop is worth sharing after it.

// startOn is how every On form begins that is not short (shortOn), on
// the caller's goroutine: a nil ctx and bad options panic, naming the
// form fn, before anything runs; a ctx already ended, or a closed pool,
// is reported without running anything, as when the loop would have
// entered the pool. The options are only checked here: rangeOn reads them
// again where it needs them.
func startOn(ctx context.Context, p *scheduler.Pool, fn string, opts []Option) error {
	checkCtx(ctx, fn)
	if len(opts) > 0 {
		_ = applyOptions(opts)
	}
	if err := ended(ctx, nil); err != nil {
		return err
	}
	if p != nil && p.Closed() {
		return scheduler.ErrClosed
	}
	return nil
}

// shortOn reports whether an On form's loop over [lo, hi) runs on the
// calling goroutine at once, as one chunk, before anything else: it has no
// options and at most DefaultInlineLen elements. A loop with options, or
// a nil ctx (for startOn's panic), takes the long way through startOn,
// and rangeOn decides the same for the loop's options.
func shortOn(ctx context.Context, lo, hi int, opts []Option) bool {
	return ctx != nil && len(opts) == 0 && lo < hi && length(lo, hi) <= DefaultInlineLen
}

// checkCtx panics, naming the form fn, if ctx is nil.
func checkCtx(ctx context.Context, fn string) {
	if ctx == nil {
		panic("weft/par: " + fn + " with a nil context: pass context.Background() or context.TODO()")
	}
}

// rangeOn is how every On form but the sequence forms runs, fn naming it:
// k over [lo, hi) from outside the pool, with the options opts. It
// returns the chunks' results combined in order (combine nil: R carries
// nothing), or R's zero value and the first error, ctx's cause, or the
// pool's error. It runs the loop on the calling goroutine if it is short
// (see above), else the probe here and the rest on a worker of p (nil:
// the default pool). After an error, or once ctx ends, no new chunk
// starts.
func rangeOn[K onKernel[R], R any](ctx context.Context, p *scheduler.Pool, fn string, lo, hi int, opts []Option, identity R,
	k K, combine func(a, b R) R) (R, error) {
	var zero R
	if shortOn(ctx, lo, hi, opts) {
		return kernelOnCaller(ctx, p, k, lo, hi)
	}
	if err := startOn(ctx, p, fn, opts); err != nil {
		return zero, err
	}
	if hi <= lo {
		return identity, nil
	}
	cfg := &defaultConfig
	if len(opts) > 0 {
		c := applyOptions(opts)
		cfg = &c
	}
	if length(lo, hi) <= uint(cfg.inlineLen) {
		return kernelOnCaller(ctx, p, k, lo, hi)
	}
	if k.infallible() {
		return longOnInfallible(ctx, p, lo, hi, cfg, identity, k, combine)
	}
	return longOn(ctx, p, lo, hi, cfg, identity, k, combine)
}

// onCaller runs chunk(env, lo, hi), a whole loop too short to share, as
// one chunk on the calling goroutine, and returns its result. Before, it
// returns ctx's cause if ctx has ended and scheduler.ErrClosed if p is
// closed, and runs nothing; after, ctx's cause if ctx ended while chunk
// ran, beside chunk's result (the caller drops it). A panic in chunk is
// re-raised as a *scheduler.Panic, as a loop in the pool does. chunk does
// not escape.
//
// The checks are startOn's and ended's written out, and chunk is a plain
// function: through those calls, and through a kernel's chunk method
// (found in a type parameter's dictionary), a 16-element loop of cheap
// elements took 10-25% longer. The With On forms call it directly; the
// other forms through kernelOnCaller.
func onCaller[E, R any](ctx context.Context, p *scheduler.Pool, chunk func(env E, lo, hi int) R, env E, lo, hi int) (r R, err error) {
	if ctx.Err() != nil {
		return r, context.Cause(ctx)
	}
	if p != nil && p.Closed() {
		return r, scheduler.ErrClosed
	}
	done := false
	defer func() {
		if !done {
			panic(core.Recovered[scheduler.Panic](recover()))
		}
	}()
	r = chunk(env, lo, hi)
	done = true
	if ctx.Err() != nil {
		return r, context.Cause(ctx)
	}
	return r, nil
}

// kernelOnCaller is onCaller for a kernel, whose chunk may fail: k's error
// comes before ctx's, and with either the result is R's zero value.
func kernelOnCaller[K onKernel[R], R any](ctx context.Context, p *scheduler.Pool, k K, lo, hi int) (R, error) {
	out, err := onCaller(ctx, p, kernelChunk[K, R], k, lo, hi)
	if out.err != nil {
		err = out.err
	}
	return zeroOnError(out.r, err)
}

// chunkResult is what a kernel's chunk returns, as one value.
type chunkResult[R any] struct {
	r   R
	err error
}

// kernelChunk runs k over [lo, hi): onCaller's chunk for a kernel.
func kernelChunk[K onKernel[R], R any](k K, lo, hi int) chunkResult[R] {
	r, err := k.chunk(lo, hi)
	return chunkResult[R]{r, err}
}

// zeroOnError returns r and nil, or R's zero value and err if err is not
// nil: what a loop returns.
func zeroOnError[R any](r R, err error) (R, error) {
	if err != nil {
		var zero R
		return zero, err
	}
	return r, nil
}

// longOnInfallible is longOn for a kernel that returns no error: the probe
// needs no loop state to record one in, so none is made unless the rest
// goes to the pool (where run makes it as it splits), and a loop the
// probe finishes on the caller allocates nothing of par's. Between the
// probe's pieces it looks at ctx, as a split loop's leaves do.
func longOnInfallible[K onKernel[R], R any](ctx context.Context, p *scheduler.Pool, lo, hi int, cfg *config, identity R,
	k K, combine func(a, b R) R) (R, error) {
	var zero R
	a := infallible[K, R]{k}
	r, next, perElem := identity, lo, 0.0
	if !cfg.setMin { // MinLen says the caller knows the work: no probe
		halted := func() bool { return ctx.Err() != nil }
		r, next, perElem = probeOnCaller(a, combine, lo, hi, cfg, halted)
	}
	if next < hi {
		var err error
		if r, err = shareRest(ctx, p, r, lo, next, hi, *cfg, perElem, a, combine, nil); err != nil {
			return zero, err
		}
	}
	if err := ended(ctx, nil); err != nil {
		return zero, err
	}
	return r, nil
}

// infallible is an onKernel that returns no error as a kernel of the
// loop machinery.
type infallible[K onKernel[R], R any] struct{ k K }

func (a infallible[K, R]) chunk(_ *scheduler.Worker, lo, hi int) R {
	r, _ := a.k.chunk(lo, hi)
	return r
}

// probeOnCaller is probeHere for any kernel.
func probeOnCaller[K kernel[R], R any](k K, combine func(a, b R) R, lo, hi int, cfg *config, halted func() bool) (r R, next int, perElem float64) {
	done := false
	defer func() {
		if !done {
			panic(core.Recovered[scheduler.Panic](recover()))
		}
	}()
	r, next, perElem = probe(nil, k, combine, lo, hi, cfg, halted)
	done = true
	return r, next, perElem
}

// longOn is rangeOn for a loop longer than the inline length.
func longOn[K onKernel[R], R any](ctx context.Context, p *scheduler.Pool, lo, hi int, cfg *config, identity R,
	k K, combine func(a, b R) R) (R, error) {
	var zero R
	l := &loop[chunkFunc[R], R]{ctx: ctx, combine: combine}
	l.k = func(_ *scheduler.Worker, lo, hi int) R {
		r, err := k.chunk(lo, hi)
		if err != nil {
			l.fail(err)
		}
		return r
	}
	r, next, perElem := identity, lo, 0.0
	if !cfg.setMin { // MinLen says the caller knows the work: no probe
		r, next, perElem = probeHere(l, lo, hi, cfg)
	}
	if next < hi {
		var err error
		if r, err = shareRest(ctx, p, r, lo, next, hi, *cfg, perElem, l.k, combine, l); err != nil {
			return zero, err
		}
	}
	if err := ended(ctx, l.firstErr()); err != nil {
		return zero, err
	}
	return r, nil
}

// shareRest runs [next, hi), the part of a loop that the probe on the
// caller left, on a worker of p (nil: the default pool), split with the
// cost per element the probe saw, and returns the whole loop's result:
// the rest's alone if the probe ran nothing, else r, the probe's result
// from lo, combined with it (through l, which skips combine once the loop
// has stopped, where the loop has shared state). l is nil where run makes
// it as it splits.
func shareRest[K kernel[R], R any](ctx context.Context, p *scheduler.Pool, r R, lo, next, hi int, cfg config,
	perElem float64, k K, combine func(a, b R) R, l *loop[K, R]) (R, error) {
	cfg.probed, cfg.perElem = true, perElem
	rest, err := scheduler.RunValue(ctx, p, func(w *scheduler.Worker) (R, error) {
		return run(ctx, w, next, hi, cfg, k, combine, l)
	})
	switch {
	case err != nil:
		var zero R
		return zero, err
	case next == lo || combine == nil:
		return rest, nil
	case l != nil:
		return l.join(r, rest), nil
	default:
		return combine(r, rest), nil
	}
}

// probeHere runs the probe over [lo, hi) on the calling goroutine, which
// is no worker, re-raising a panic as a *scheduler.Panic as a loop inside
// the pool does. It returns the pieces' combined result, where the rest
// starts (hi if the probe ran it all, or the loop stopped) and the cost
// per element it saw.
func probeHere[R any](l *loop[chunkFunc[R], R], lo, hi int, cfg *config) (r R, next int, perElem float64) {
	return probeOnCaller(l.k, l.combine, lo, hi, cfg, l.halted)
}
