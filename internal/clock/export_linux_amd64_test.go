package clock

import "time"

// CalibrateNow switches Now to the counter at once, whatever the time
// since epoch (the rate is then less exact than after calibrationSpan),
// and reports whether it did (not where the kernel keeps time with
// another clock).
func CalibrateNow() bool {
	if claimed.CompareAndSwap(false, true) {
		calibrate()
	}
	return nsPerTick.Load() != 0
}

// Pair is a counter reading and the runtime clock's reading at the same
// moment.
type Pair = pair

// NewPair makes a Pair.
func NewPair(ticks uint64, mono time.Duration) Pair { return pair{ticks, mono} }

// Rate is rate, for tests.
func Rate(from, to Pair) (float64, bool) { return rate(from, to) }

// At is pair.at, for tests.
func At(o Pair, t uint64, nsPerTick float64) time.Duration { return o.at(t, nsPerTick) }
