package par

import (
	"math"
	"time"

	"github.com/weftrt/weft/scheduler"
)

// The probe is how a loop learns what its elements cost without asking
// the user: it runs the first pieces of the range inline, growing each
// piece probeGrowth times, and reads the clock after each (a read costs
// 11 to 25 ns, internal/clock, so a few of them are nothing next to a
// loop worth splitting). It stops as soon as the rest of the loop, at the cost per
// element seen so far, is below inlineWork, and then runs the rest inline
// too; or once probeTime has passed, and then the rest is split with a
// grain from that cost (config.grain). The first piece is one element, so
// a loop of expensive elements is split after the first two (a first
// element that alone took probeTime may have been interrupted, so the
// probe times a second one and keeps the cheaper cost; where the second
// cost a fraction of the first, it starts timing afresh from the third;
// a first element of inlineWork or more is believed at once);
// a loop that cannot spare even that (as many expensive elements as
// workers) says MinLen, which skips the probe. Every timing has the cost
// of its clock reads taken off (see net).
//
// The pieces run before anything is forked. Forking the rest while the
// first piece runs would let an expensive first element share its loop
// sooner, but it also hands tiny loops to idle workers: a steal costs
// microseconds, ten times a loop of a thousand cheap elements.
const (
	probeGrowth = 16
	probeTime   = time.Microsecond
	// outlier is how many times the second element's cost the first's
	// must be for the probe to put the first down to an interruption.
	outlier = 8
	// inlineWork is the work below which a loop is not worth sharing:
	// waking a sleeping worker (10 to 20 µs) and letting it ramp up
	// costs about this much, so a shorter loop finishes as soon on one
	// worker, and leaves the others free. A loop of a thousand cheap
	// elements ends after one piece (see net).
	inlineWork = 32 * time.Microsecond
	// leafWork is the least work a chunk should hold: a fork and a chunk
	// call cost tens of nanoseconds at most, 1% of it.
	leafWork = 2 * time.Microsecond
	// leavesPerWorker is how many chunks per worker a loop aims at when
	// its length allows: enough that a worker which finishes early finds
	// a large piece to steal even when element costs differ a hundredfold.
	leavesPerWorker = 64
	// leafMaxWork is the most work a chunk should hold, where the loop
	// has elements enough: a worker looks at its heartbeat only at a
	// join, so an idle worker that asks for a fork waits out the chunk
	// its victim is running, and at the loop's end the last chunk runs
	// alone. A loop of a thousand rows of a millisecond each, cut by
	// count alone into 64 chunks per worker, had chunks of 8 ms; with
	// 100 µs, a loop of 256 rows of 45 µs had chunks of two rows, and
	// its workers ended 70 µs apart (35 µs with one row a chunk).
	leafMaxWork = 50 * time.Microsecond
	// sleeperWork is the least work a leaf forks off for an idle worker
	// when every idle worker sleeps (leaf.go): waking one costs tens of
	// microseconds here, and a first version that split for a sleeper
	// whatever was left cost the uniform loop 8%.
	sleeperWork = 100 * time.Microsecond
	// maxLeavesPerWorker bounds the chunks leafMaxWork may cut a loop
	// into: a first piece that costs far more than the rest would
	// otherwise cut a long loop of cheap elements into chunks of one.
	maxLeavesPerWorker = 1024
)

// probe runs the first pieces of [lo, hi) on w (see above) and returns
// their combined result, where the rest starts (hi when the probe ran it
// all, or the loop stopped: halted, if not nil, said so after a piece) and
// the cost per element it saw, in nanoseconds. It only reads cfg, which
// may be the shared defaultConfig.
func probe[K kernel[R], R any](w *scheduler.Worker, k K, combine func(a, b R) R,
	lo, hi int, cfg *config, halted func() bool) (r R, next int, perElem float64) {
	// Lengths are uints (see length): the range may hold more than
	// math.MaxInt elements.
	n := length(lo, hi)
	start := cfg.now()
	piece := cfg.minLen
	var reads time.Duration // clock reads since start
	for first := true; lo < hi; first = false {
		if cfg.maxLen > 0 {
			piece = min(piece, cfg.maxLen)
		}
		end := int(uint(lo) + min(uint(piece), length(lo, hi)))
		x := k.chunk(w, lo, end)
		if first || combine == nil {
			r = x
		} else {
			r = combine(r, x)
		}
		lo = end
		if lo == hi || (halted != nil && halted()) {
			return r, hi, 0
		}
		elapsed := cfg.now() - start
		reads++
		rest := length(lo, hi)
		perElem = float64(net(elapsed, reads*cfg.readCost())) / float64(n-rest)
		if first && elapsed >= probeTime && elapsed < inlineWork {
			// One element that took a microsecond may be one that was
			// interrupted or missed every cache: a second opinion, before
			// a loop of cheap elements is shared for it. Not for one that
			// took inlineWork or more: the second opinion would then cost
			// more than the mistake it guards against (a loop shared for
			// nothing: a wake-up and some forks), and it runs before
			// anything is shared, while the other workers wait.
			var again float64
			r, lo, again = probeAgain(w, k, combine, r, lo, cfg)
			if lo == hi || (halted != nil && halted()) {
				return r, hi, 0
			}
			if again*outlier < perElem {
				// The first element was interrupted, not dear, and the
				// second, run straight after it with cold caches, may
				// still cost several times what the rest will: time the
				// rest afresh, as a probe starting here would.
				start, n, reads = cfg.now(), length(lo, hi), 0
				continue
			}
			perElem = min(perElem, again)
			rest = length(lo, hi)
		}
		// A timing of 0 or less (a clock coarser than the pieces, or two
		// reads a few nanoseconds apart across the clock's switch to the
		// counter: internal/clock) says nothing: the next, longer piece is
		// timed too, lest a long loop run inline on no evidence.
		if perElem > 0 && float64(rest)*perElem < float64(inlineWork) && (cfg.maxLen == 0 || rest <= uint(cfg.maxLen)) {
			x := k.chunk(w, lo, hi)
			if combine != nil {
				r = combine(r, x)
			}
			return r, hi, perElem
		}
		if elapsed >= probeTime {
			return r, lo, perElem
		}
		// Bounded before it grows: over a range of more than 2^60
		// elements whose chunks cost next to nothing (a closed form), the
		// sixteenth growth would wrap piece to 0, and the probe would hand
		// out empty chunks until its microsecond had passed.
		piece = min(piece, math.MaxInt/probeGrowth) * probeGrowth
	}
	return r, hi, perElem
}

// probeAgain runs the element at lo, times it, and returns r combined with
// its result, where the rest starts, and its cost in nanoseconds.
func probeAgain[K kernel[R], R any](w *scheduler.Worker, k K, combine func(a, b R) R, r R, lo int, cfg *config) (R, int, float64) {
	start := cfg.now()
	x := k.chunk(w, lo, lo+1)
	cost := float64(net(cfg.now()-start, cfg.readCost()))
	if combine == nil {
		return x, lo + 1, cost
	}
	return combine(r, x), lo + 1, cost
}

// net is a timing with its clock reads' cost (clock.ReadCost, through
// config.readCost) taken off, but never below a quarter of the timing.
//
// Without the reads taken off, the first piece, one element, timed at the
// cost of a read (22 ns on the 2-vCPU VM through the runtime's clock)
// where a cheap element costs 1: a loop of a thousand of them sat right at
// inlineWork, and whenever a read was a little slow, or the first element
// was interrupted and the second opinion ran with cold caches, it went to
// the pool for tens of microseconds (184 in 300,000 such loops from
// outside; 61 with the reads taken off, 5 with the fresh start after an
// outlier too). On a clock coarser than a read, the read cost is 0 and
// nothing is taken off.
//
// The floor: the reads' cost is a least, and a timing of one cheap element
// may come out at it, or under it, where the element's cost hides in the
// reads' jitter. Taken off whole, such a timing would say the element cost
// nothing, and the probe would run any loop of such elements inline, ten
// million of them as well as a thousand.
func net(elapsed, reads time.Duration) time.Duration {
	return max(elapsed-reads, elapsed/4)
}
