package par

import (
	"context"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/weftrt/weft/internal/core"
	"github.com/weftrt/weft/join"
	"github.com/weftrt/weft/scheduler"
)

// errNilWorker is the panic for a loop started with no worker, as join's.
const errNilWorker = "weft/par: nil worker: from outside the pool, use the On forms (ForOn, MapOn, ...)"

// A kernel is a loop's chunk together with the data it works on: a value
// whose chunk method runs the range [lo, hi) on w. Every form has its
// own kernel type, a struct of its arguments (ForEach's slice and body,
// Map's input, output and function) or the caller's closure itself, and
// the loop machinery is generic in it. So no form makes a closure to run
// its loop: a loop that is not split (one short enough to run inline, or
// one the probe finishes) allocates nothing of this package's, and one
// that splits copies its kernel once, into the loop it shares.
type kernel[R any] interface {
	chunk(w *scheduler.Worker, lo, hi int) R
}

// chunkFunc is the kernel of ReduceRange: the caller's chunk closure.
type chunkFunc[R any] func(w *scheduler.Worker, lo, hi int) R

func (f chunkFunc[R]) chunk(w *scheduler.Worker, lo, hi int) R { return f(w, lo, hi) }

// bodyFunc is the kernel of ForRange: the caller's body.
type bodyFunc func(w *scheduler.Worker, lo, hi int)

func (f bodyFunc) chunk(w *scheduler.Worker, lo, hi int) none {
	f(w, lo, hi)
	return none{}
}

// loop is what every chunk of one loop shares: the chunk, how to combine
// two adjacent results, the chunk length, and the stop flag that the
// first error, a cancelled context or a panic raises so that no new chunk
// starts. It is made only when a loop splits.
type loop[K kernel[R], R any] struct {
	k       K
	combine func(a, b R) R // nil when R carries nothing
	grain   int
	minLen  int // no half shorter than this is split off (MinLen)
	step    int // a leaf asks between pieces this long (leaf.go)
	// clock replaces the leaves' clock in tests (config.clock); nil in use.
	clock func() time.Duration
	// fork is split[K, R], the function each fork of the loop runs, made
	// once by run before the loop splits: the value of a generic function
	// is a closure over its dictionary, and one made at each fork was a
	// heap allocation at each fork (it escapes into join.Call's frame).
	fork func(w *scheduler.Worker, s span[K, R]) R
	stop atomic.Bool
	// ctx is the loop's context when it can be cancelled (else nil): a
	// leaf also checks ctx.Done() itself, so that a cancellation stops new
	// chunks at once, not only once the AfterFunc callback has run.
	ctx context.Context
	mu  sync.Mutex
	err error // the first error; guarded by mu
}

// span is a range of a loop: the argument of split, passed by value
// through join.Call's pooled frames so that a split allocates nothing.
type span[K kernel[R], R any] struct {
	l      *loop[K, R]
	lo, hi int
}

// split runs s: it halves the range with join.Call until a half is no
// longer than the loop's grain, then runs the chunk. Every half but the
// first is a private fork of the worker, which costs a few plain stores;
// the scheduler's heartbeat publishes the oldest one, the largest range
// still unstarted, only when another worker is idle. So the loop is cut
// finely enough to balance uneven work, yet only the few pieces that idle
// workers ask for ever leave the worker (see docs/loops.md).
func split[K kernel[R], R any](w *scheduler.Worker, s span[K, R]) R {
	l := s.l
	// A range that halves into pieces shorter than MinLen is not split:
	// the grain alone would cut a range of MinLen+1 elements into two of
	// about MinLen/2, and MinLen sets the shortest chunk.
	if n := length(s.lo, s.hi); n <= uint(l.grain) || n/2 < uint(l.minLen) || l.stop.Load() {
		return l.leaf(w, s.lo, s.hi)
	}
	mid := int(uint(s.lo) + length(s.lo, s.hi)/2)
	left, right := span[K, R]{l, s.lo, mid}, span[K, R]{l, mid, s.hi}
	if join.Plain(w) { // deep in the split: no fork wanted here
		return l.join(split(w, left), split(w, right))
	}
	a, b := join.Call(w, l.fork, left, right)
	return l.join(a, b)
}

// now reads the leaves' clock, the probe's.
func (l *loop[K, R]) now() time.Duration { return readClock(l.clock) }

// halted reports whether the loop has stopped. It also looks at the
// loop's context itself, and stops the loop with the context's cause if it
// is done: the AfterFunc callback that does so runs on a goroutine of its
// own, and may not have run yet when the next chunk is about to start.
func (l *loop[K, R]) halted() bool {
	if l.stop.Load() {
		return true
	}
	if l.ctx != nil && l.ctx.Err() != nil { // an atomic load (Go 1.26)
		l.fail(context.Cause(l.ctx))
		return true
	}
	return false
}

// fail records err if it is the loop's first error and stops the loop.
func (l *loop[K, R]) fail(err error) {
	l.mu.Lock()
	if l.err == nil {
		l.err = err
	}
	l.mu.Unlock()
	l.stop.Store(true)
}

// firstErr returns the first error recorded.
func (l *loop[K, R]) firstErr() error {
	if !l.stop.Load() {
		return nil // the common case, without the lock
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.err
}

// run runs k over [lo, hi) on w and returns the combined result and the
// first error. A cancelled ctx stops the loop as an error does, and one
// that ends before run returns is its error if no chunk failed first. It first
// times a few growing pieces of the range (probe.go), which either
// finishes the loop, when the rest is too little work to share, or sets
// the grain for splitting the rest; with MinLen set, it splits at once.
// l is the loop's shared state if the caller needs it already (its chunk
// records errors in it), or nil: then it is made only if the loop
// splits, so that a loop the probe finishes allocates nothing here.
func run[K kernel[R], R any](ctx context.Context, w *scheduler.Worker, lo, hi int, cfg config,
	k K, combine func(a, b R) R, l *loop[K, R]) (R, error) {
	var zero R
	if ctx.Done() != nil {
		if ctx.Err() != nil {
			return zero, context.Cause(ctx)
		}
		if l == nil {
			l = &loop[K, R]{k: k, combine: combine}
		}
		// The callback stops the loop at once, the chunks running
		// included (they look at the stop flag between their pieces).
		// It captures a copy of l, so that l itself stays on the stack
		// when ctx cannot be cancelled.
		lc := l
		lc.ctx = ctx
		stop := context.AfterFunc(ctx, func() { lc.fail(context.Cause(ctx)) })
		defer stop()
	}
	done, looping := false, false
	defer func() {
		if looping {
			(*core.Worker)(w).LeaveLoop()
		}
		if !done { // a panic in the probe, or re-raised by join
			panic(core.Recovered[scheduler.Panic](recover()))
		}
	}()
	var r R
	next, perElem := lo, 0.0
	switch {
	case cfg.probed: // by an On form, on the calling goroutine (chunksOn)
		perElem = cfg.perElem
	case !cfg.setMin: // MinLen says the caller knows the work: no probe
		var halted func() bool
		if l != nil {
			halted = l.halted
		}
		r, next, perElem = probe(w, k, combine, lo, hi, &cfg, halted)
	}
	if next < hi {
		if l == nil {
			l = &loop[K, R]{k: k, combine: combine}
		}
		l.grain = cfg.grain(int(min(length(lo, hi), math.MaxInt)), w.Pool().Workers(), perElem)
		l.minLen = cfg.minLen
		l.step = cfg.step(l.grain, perElem)
		l.clock = cfg.clock
		l.fork = split[K, R]
		// The probe knows the rest's work: if it is worth a wake-up, the
		// first fork may wake a sleeper for it at once (docs/forks.md).
		// Capped, so that the conversion cannot overflow.
		work := min(perElem*float64(length(next, hi)), float64(time.Hour))
		(*core.Worker)(w).ShareSoon(time.Duration(work))
		// While it splits, a worker that runs out of work spins a while
		// before it sleeps, for this loop's forks or the next loop's
		// (internal/core/spin.go).
		(*core.Worker)(w).EnterLoop()
		looping = true
		rest := split(w, span[K, R]{l, next, hi})
		if next == lo {
			r = rest
		} else {
			r = l.join(r, rest)
		}
	}
	done = true
	var err error
	if l != nil {
		err = l.firstErr()
	}
	if err = ended(ctx, err); err != nil {
		return zero, err
	}
	return r, nil
}

// ended returns err, or ctx's cause if err is nil and ctx has ended: a
// loop reports a context that ended at any time before it returns. The
// leaves look at ctx only before a chunk starts, and run's AfterFunc
// callback records the cause from a goroutine of its own, which may not
// have run yet; so a ctx that ended in the last chunk, when no chunk was
// left to stop, went unreported without this look at the end.
func ended(ctx context.Context, err error) error {
	if err == nil && ctx.Err() != nil {
		return context.Cause(ctx)
	}
	return err
}

// join combines the results of two adjacent ranges. Once the loop has
// stopped, a skipped chunk's result is R's zero value, which neither chunk
// nor identity produced and combine need not accept (a nil pointer, an
// empty slice it indexes): the loop's result is discarded then, for its
// error or its panic, so join does not combine. A combine that panicked on
// such a value would also replace the panic that stopped the loop.
//
// A panic in combine stops the loop as a chunk's does: it unwinds through
// the joins above, each of which would otherwise run its unstarted half,
// the rest of the loop, before the panic reaches the caller.
func (l *loop[K, R]) join(a, b R) (r R) {
	if l.combine == nil || l.stop.Load() {
		return a
	}
	done := false
	defer func() {
		if !done {
			l.stop.Store(true)
		}
	}()
	r = l.combine(a, b)
	done = true
	return r
}

// forLong runs k over [lo, hi), a range longer than the inline length:
// the probe, then the split if the probe finds work to share.
func forLong[K kernel[none]](w *scheduler.Worker, lo, hi int, cfg config, k K) {
	_, _ = run[K, none](context.Background(), w, lo, hi, cfg, k, nil, nil) // no error without ctx or fail
}

// reduceLong is forLong for a loop with a result.
func reduceLong[K kernel[R], R any](w *scheduler.Worker, lo, hi int, cfg config, k K, combine func(a, b R) R) R {
	r, _ := run(context.Background(), w, lo, hi, cfg, k, combine, nil) // no error without ctx or fail
	return r
}

// inlineDo runs f, a whole loop too short to split, on the calling
// worker, with no fork, re-raising a panic as a *scheduler.Panic as the
// forked path does. Every form checks for such a loop first and runs it
// here, written out in f (or, for For and ForErr, the chunk method of a
// non-generic kernel), not through the loop machinery: there, generic in
// the kernel, the same loop costs a dictionary lookup and an indirect
// call more, 10-37% of a 16-element loop. f does not escape.
func inlineDo(f func()) {
	done := false
	defer func() {
		if !done {
			panic(core.Recovered[scheduler.Panic](recover()))
		}
	}()
	f()
	done = true
}

// inlineRange is inlineDo for ForRange, without the closure around body.
func inlineRange(w *scheduler.Worker, body func(w *scheduler.Worker, lo, hi int), lo, hi int) {
	done := false
	defer func() {
		if !done {
			panic(core.Recovered[scheduler.Panic](recover()))
		}
	}()
	body(w, lo, hi)
	done = true
}

// checkFunc panics, naming the loop fn and its parameter, if the function
// given for param is nil: otherwise the loop would fail later, in a chunk
// on some worker, with a nil-pointer panic that names neither.
func checkFunc(isNil bool, fn, param string) {
	if isNil {
		panic("weft/par: " + fn + " with a nil " + param + " function")
	}
}

// checkWorker panics if w is nil: the On forms are for outside the pool.
func checkWorker(w *scheduler.Worker) {
	if w == nil {
		panic(errNilWorker)
	}
}

// length is the number of elements of [lo, hi), for hi > lo. It is a
// uint because hi-lo wraps to a negative int for a range of more than
// math.MaxInt elements, such as [math.MinInt, math.MaxInt): read as an
// int, that length made every form run the whole range as one chunk,
// whatever MaxLen said.
func length(lo, hi int) uint { return uint(hi) - uint(lo) }

// none is the result type of loops that compute nothing.
type none = struct{}
