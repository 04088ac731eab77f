package runner

import "time"

// WithClock returns o reading the time from now instead of the real clock.
func WithClock(o Options, now func() time.Time) Options {
	o.clock = clock{now: now, cpu: realClock.cpu}
	return o
}

// TimeOn is Time reading the given clocks.
func TimeOn(now func() time.Time, cpu func() time.Duration, f func()) Span {
	return clock{now: now, cpu: cpu}.time(f)
}
