package par

import (
	"context"

	"github.com/weftrt/weft/internal/core"
	"github.com/weftrt/weft/scheduler"
)

// The On forms whose body gets no worker (ForOn, ForEachOn, MapOn and
// their Err forms) need none to run a chunk, so a loop too small to share
// runs on the calling goroutine and never enters the pool: entering costs
// a wake-up and a hand-off, over a microsecond, which is a hundred times
// a loop of sixteen cheap elements. The decision is the one a loop makes
// inside the pool (docs/loops.md, How a loop is cut), made on the
// caller: a loop of at most the inline length runs at once, with no clock
// read; a longer one
// runs the probe's pieces here, and if the rest, at the cost per element
// seen, is less than inlineWork, runs the rest here too. Otherwise the
// rest, with the cost the probe saw, goes to the pool, where it is split
// at once. A loop of few but expensive elements is not serialised: the
// probe's first piece is one element, and the rest of such a loop is
// worth sharing after it. The forms whose body gets a worker (ForRangeOn,
// ReduceRangeOn, ...) always enter the pool: their body may nest a loop on
// that worker.

// startOn is how every inline-capable On form begins: a nil ctx never
// cancels, bad options panic before anything runs, and a ctx already
// ended, or a closed pool, is reported without running anything, as
// when the loop would have entered the pool.
func startOn(ctx context.Context, p *scheduler.Pool, opts []Option) (context.Context, config, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	cfg := newConfig(opts)
	if ctx.Err() != nil {
		return ctx, cfg, context.Cause(ctx)
	}
	if p != nil && p.Closed() {
		return ctx, cfg, scheduler.ErrClosed
	}
	return ctx, cfg, nil
}

// chunksOn runs chunk over [0, n), a loop longer than the inline length,
// from outside the pool: the probe on the calling goroutine, then, if the
// rest is worth sharing, the rest on a worker of p (nil: the default
// pool). chunk returns the first error of its range; after an error, or
// once ctx ends, no new chunk starts.
func chunksOn(ctx context.Context, p *scheduler.Pool, n int, cfg config, chunk func(lo, hi int) error) error {
	l := &loop[chunkFunc[none], none]{ctx: ctx}
	l.k = func(_ *scheduler.Worker, lo, hi int) none {
		if err := chunk(lo, hi); err != nil {
			l.fail(err)
		}
		return none{}
	}
	next, perElem := 0, 0.0
	if !cfg.setMin { // MinLen says the caller knows the work: no probe
		next, perElem = probeHere(l, n, cfg)
	}
	if next < n {
		cfg.probed, cfg.perElem = true, perElem
		return on(ctx, p, func(w *scheduler.Worker) error {
			_, err := run(ctx, w, next, n, cfg, l.k, nil, l)
			return err
		})
	}
	return ended(ctx, l.firstErr())
}

// probeHere runs the probe over [0, n) on the calling goroutine, which is
// no worker, re-raising a panic as a *scheduler.Panic as a loop inside the
// pool does. It returns where the rest starts (n if the probe ran it all,
// or the loop stopped) and the cost per element it saw.
func probeHere(l *loop[chunkFunc[none], none], n int, cfg config) (next int, perElem float64) {
	done := false
	defer func() {
		if !done {
			panic(core.Recovered(recover()))
		}
	}()
	_, next, perElem = probe(nil, l.k, nil, 0, n, cfg, l)
	done = true
	return next, perElem
}
