package par

import (
	"math"
	"time"

	"github.com/weftrt/weft/internal/core"
	"github.com/weftrt/weft/join"
	"github.com/weftrt/weft/scheduler"
)

// A leaf is a range that split no longer halves: one chunk, as long as the
// grain. The grain comes from the probe's cost per element, which the
// first elements set; where elements grow dearer along the range (a
// triangular loop), the last leaves hold far more work than the grain
// meant, and a worker that runs out of work waits for the whole of such a
// leaf, asleep by then, while its owner runs it alone. So a leaf runs in
// pieces of the loop's step, and between two pieces it looks for a
// request from an idle worker (core.Worker.Asked: one load of a word in
// the owner's cache); if splitting the rest is worth it (answer), it does,
// and the heartbeat check of that split's fork hands the idle worker the
// owner's oldest private fork. A leaf nobody asks from costs its pieces'
// calls and a load each: the step keeps a piece at checkWork or more.

// checkWork is the least work between two asks of a leaf: a chunk call and
// a load cost a few nanoseconds, half a percent of it.
const checkWork = leafWork / 2

// leafPieces is how many pieces a leaf of the grain's length runs in, if
// its elements are cheap enough that each piece holds checkWork.
const leafPieces = 8

// step is the length of a leaf's pieces (see above) for a grain and a
// cost per element in nanoseconds: a leaf in leafPieces pieces, each of
// checkWork at least, at the cost the probe saw. MinLen says the caller
// knows the work and wants chunks of its length: the leaf is one piece,
// however long (a range that cannot be halved into MinLen-long halves
// stays whole, so a leaf can be longer than the grain).
func (c config) step(grain int, perElem float64) int {
	if c.setMin {
		return math.MaxInt
	}
	s := max(1, grain/leafPieces)
	if perElem > 0 {
		s = max(s, int(float64(checkWork)/perElem))
	}
	return s
}

// leaf runs one chunk, [lo, hi), unless the loop has stopped, in pieces of
// the loop's step (see above). A panicking chunk raises the stop flag
// before the panic unwinds, so that the rest of the loop starts no new
// chunk while join carries the panic to the caller.
func (l *loop[K, R]) leaf(w *scheduler.Worker, lo, hi int) (r R) {
	if l.halted() {
		return r
	}
	done := false
	defer func() {
		if !done {
			l.stop.Store(true)
		}
	}()
	r = l.pieces(w, lo, hi)
	done = true
	return r
}

// pieces is leaf's loop over its pieces; between two, it answers a
// request for work by splitting the rest, if that is worth it (answer).
func (l *loop[K, R]) pieces(w *scheduler.Worker, lo, hi int) R {
	step := uint(max(l.step, 1))
	end := int(uint(lo) + min(step, length(lo, hi)))
	r := l.k.chunk(w, lo, end)
	var q request
	for lo = end; lo < hi; lo = end {
		if l.stop.Load() {
			return r
		}
		if rest := length(lo, hi); rest >= 2*step && l.answer(w, &q, lo, rest) {
			(*core.Worker)(w).CheckNextFork()
			return l.join(r, l.splitRest(w, lo, hi))
		}
		end = int(uint(lo) + min(step, length(lo, hi)))
		r = l.join(r, l.k.chunk(w, lo, end))
	}
	return r
}

// request is whether, where and when a leaf first saw a request for work
// that only sleeping workers could answer.
type request struct {
	seen  bool
	at    int
	since time.Duration
}

// answer reports whether a leaf at lo, with rest elements left, splits
// them for an idle worker: one asked, and it is searching (a steal costs
// a microsecond), or every idle worker sleeps and the rest, at the cost
// per element timed since q.at, holds sleeperWork or more (waking one
// costs tens of microseconds). With no request it costs one load; with one
// only sleepers can answer, a clock read.
func (l *loop[K, R]) answer(w *scheduler.Worker, q *request, lo int, rest uint) bool {
	asked, awake := (*core.Worker)(w).Asked()
	switch {
	case !asked:
		return false
	case awake:
		return true
	}
	now := l.now()
	if !q.seen {
		*q = request{seen: true, at: lo, since: now}
		return false
	}
	return float64(now-q.since)/float64(length(q.at, lo))*float64(rest) >= float64(sleeperWork)
}

// splitRest runs [lo, hi), what a leaf has left, as two halves joined with
// a fork, for the idle worker that a piece found waiting.
func (l *loop[K, R]) splitRest(w *scheduler.Worker, lo, hi int) R {
	mid := int(uint(lo) + length(lo, hi)/2)
	a, b := join.Call(w, l.fork, span[K, R]{l, lo, mid}, span[K, R]{l, mid, hi})
	return l.join(a, b)
}
