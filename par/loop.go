package par

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/weftrt/weft/internal/core"
	"github.com/weftrt/weft/join"
	"github.com/weftrt/weft/scheduler"
)

// errNilWorker is the panic for a loop started with no worker, as join's.
const errNilWorker = "weft/par: nil worker: from outside the pool, use the On forms (ForOn, MapOn, ...)"

// loop is what every chunk of one loop shares: the chunk function, how to
// combine two adjacent results, the chunk length, and the stop flag that
// the first error, a cancelled context or a panic raises so that no new
// chunk starts.
type loop[R any] struct {
	chunk   func(w *scheduler.Worker, lo, hi int) R
	combine func(a, b R) R // nil when R carries nothing
	grain   int
	stop    atomic.Bool
	// ctx is the loop's context when it can be cancelled (else nil): a
	// leaf also checks ctx.Done() itself, so that a cancellation stops new
	// chunks at once, not only once the AfterFunc callback has run.
	ctx context.Context
	mu  sync.Mutex
	err error // the first error; guarded by mu
}

// span is a range of a loop: the argument of split, passed by value
// through join.Call's pooled frames so that a split allocates nothing.
type span[R any] struct {
	l      *loop[R]
	lo, hi int
}

// split runs s: it halves the range with join.Call until a half is no
// longer than the loop's grain, then runs the chunk. Every half but the
// first is a private fork of the worker, which costs a few plain stores;
// the scheduler's heartbeat publishes the oldest one, the largest range
// still unstarted, only when another worker is idle. So the loop is cut
// finely enough to balance uneven work, yet only the few pieces that idle
// workers ask for ever leave the worker (see doc.go).
func split[R any](w *scheduler.Worker, s span[R]) R {
	l := s.l
	if s.hi-s.lo <= l.grain || l.stop.Load() {
		return l.leaf(w, s.lo, s.hi)
	}
	mid := s.lo + (s.hi-s.lo)/2
	a, b := join.Call(w, split[R], span[R]{l, s.lo, mid}, span[R]{l, mid, s.hi})
	if l.combine == nil {
		return a
	}
	return l.combine(a, b)
}

// leaf runs one chunk unless the loop has stopped. A panicking chunk
// raises the stop flag before the panic unwinds, so that the rest of the
// loop starts no new chunk while join carries the panic to the caller.
func (l *loop[R]) leaf(w *scheduler.Worker, lo, hi int) (r R) {
	if l.stop.Load() {
		return r
	}
	if l.ctx != nil {
		select { // lock-free while Done is open; chunks are microseconds
		case <-l.ctx.Done():
			l.fail(context.Cause(l.ctx))
			return r
		default:
		}
	}
	done := false
	defer func() {
		if !done {
			l.stop.Store(true)
		}
	}()
	r = l.chunk(w, lo, hi)
	done = true
	return r
}

// fail records err if it is the loop's first error and stops the loop.
func (l *loop[R]) fail(err error) {
	l.mu.Lock()
	if l.err == nil {
		l.err = err
	}
	l.mu.Unlock()
	l.stop.Store(true)
}

// firstErr returns the first error recorded.
func (l *loop[R]) firstErr() error {
	if !l.stop.Load() {
		return nil // the common case, without the lock
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.err
}

// run runs chunk over [lo, hi) on w and returns the combined result and
// the first error. A cancelled ctx stops the loop as an error does. It
// first times a few growing pieces of the range (probe.go), which either
// finishes the loop, when the rest is too little work to share, or sets
// the grain for splitting the rest; with MinLen set, it splits at once.
// l is the loop's shared state if the caller needs it already (its chunk
// records errors in it), or nil: then it is made only if the loop
// splits, so that a loop the probe finishes allocates nothing here.
func run[R any](ctx context.Context, w *scheduler.Worker, lo, hi int, cfg config,
	chunk func(w *scheduler.Worker, lo, hi int) R, combine func(a, b R) R, l *loop[R]) (R, error) {
	var zero R
	if ctx.Done() != nil {
		if err := ctx.Err(); err != nil {
			return zero, err
		}
		if l == nil {
			l = &loop[R]{chunk: chunk, combine: combine}
		}
		// A callback rather than a check per chunk: ctx.Err takes a lock.
		// It captures a copy of l, so that l itself stays on the stack
		// when ctx cannot be cancelled.
		lc := l
		lc.ctx = ctx
		stop := context.AfterFunc(ctx, func() { lc.fail(context.Cause(ctx)) })
		defer stop()
	}
	done := false
	defer func() {
		if !done { // a panic in the probe, or re-raised by join
			panic(core.Recovered(recover()))
		}
	}()
	var r R
	next, perElem := lo, 0.0
	if !cfg.setMin { // MinLen says the caller knows the work: no probe
		var stop *atomic.Bool
		if l != nil {
			stop = &l.stop
		}
		r, next, perElem = probe(w, chunk, combine, lo, hi, cfg, stop)
	}
	if next < hi {
		if l == nil {
			l = &loop[R]{chunk: chunk, combine: combine}
		}
		l.grain = cfg.grain(hi-lo, w.Pool().Workers(), perElem)
		rest := split(w, span[R]{l, next, hi})
		if next == lo {
			r = rest
		} else {
			r = l.join(r, rest)
		}
	}
	done = true
	if l != nil {
		if err := l.firstErr(); err != nil {
			return zero, err
		}
	}
	return r, nil
}

// join combines the results of two adjacent ranges.
func (l *loop[R]) join(a, b R) R {
	if l.combine == nil {
		return a
	}
	return l.combine(a, b)
}

// inline runs a loop too short to split on the calling worker, with no
// fork and nothing allocated, re-raising a panic as a *scheduler.Panic as
// the forked path does.
func inline[R any](w *scheduler.Worker, chunk func(w *scheduler.Worker, lo, hi int) R, lo, hi int) R {
	done := false
	defer func() {
		if !done {
			panic(core.Recovered(recover()))
		}
	}()
	r := chunk(w, lo, hi)
	done = true
	return r
}

// inlineDo runs f, a whole loop too short to split, on the calling
// worker, re-raising a panic as a *scheduler.Panic as the forked path
// does. The forms built on the chunk forms (For, Map, Reduce, ...) call it
// before they make their chunk closure, which escapes to the heap because
// a thief may run it: f does not escape, so a loop run inline allocates
// no closure of par's.
func inlineDo(f func()) {
	done := false
	defer func() {
		if !done {
			panic(core.Recovered(recover()))
		}
	}()
	f()
	done = true
}

// inlineNone is inline for a chunk with no result.
func inlineNone(w *scheduler.Worker, body func(w *scheduler.Worker, lo, hi int), lo, hi int) {
	done := false
	defer func() {
		if !done {
			panic(core.Recovered(recover()))
		}
	}()
	body(w, lo, hi)
	done = true
}

// checkWorker panics if w is nil: the On forms are for outside the pool.
// checkFunc panics, naming the loop fn and its parameter, if the function
// given for param is nil: otherwise the loop would fail later, in a chunk
// on some worker, with a nil-pointer panic that names neither.
func checkFunc(isNil bool, fn, param string) {
	if isNil {
		panic("weft/par: " + fn + " with a nil " + param + " function")
	}
}

func checkWorker(w *scheduler.Worker) {
	if w == nil {
		panic(errNilWorker)
	}
}

// none is the result type of loops that compute nothing.
type none = struct{}
