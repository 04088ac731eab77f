package par

import "time"

// WithClock makes a loop's probe read f instead of the monotonic clock.
func WithClock(f func() time.Duration) Option {
	return func(c *config) { c.clock = f }
}

// WithReadCost says what a read of WithClock's clock costs, for the probe
// to take off its timings (the monotonic clock's is measured: clock.ReadCost).
func WithReadCost(d time.Duration) Option {
	return func(c *config) { c.clockRead = d }
}
