package weftjs

import (
	"math/rand/v2"
	"sync/atomic"
	"time"
)

// throttle is the backoff of polls the server answers "come back later"
// (408 Requests Pending, 409 Exceeded MaxWaiting): it has messages, but
// not for this request, typically because the consumer's MaxAckPending
// is reached while failed tasks wait out their backoff. Asking again at
// once would make each worker poll a hundred times a second for nothing.
// The pause doubles with each such answer in a row, from throttleMin up
// to a cap (a second, or PollWait if shorter), with jitter so that the
// workers do not come back in step; a poll that brings a task starts
// over.
type throttle struct {
	max   time.Duration
	inRow atomic.Int64
}

// testHookThrottle, when a test sets it, sees every pause a poll takes
// after a "come back later"; only the throttled path reads it.
var testHookThrottle func(time.Duration)

// throttleMin is the first pause after a "come back later".
const throttleMin = 10 * time.Millisecond

func (t *throttle) init(pollWait time.Duration) { t.max = max(min(time.Second, pollWait), throttleMin) }

// next returns the pause after one more "come back later": a random
// duration in [d/2, d], d doubling each time up to the cap.
func (t *throttle) next() time.Duration {
	k := min(t.inRow.Add(1)-1, 16)
	d := min(throttleMin<<k, t.max)
	return d/2 + rand.N(d/2+1)
}

func (t *throttle) reset() {
	if t.inRow.Load() != 0 {
		t.inRow.Store(0)
	}
}
