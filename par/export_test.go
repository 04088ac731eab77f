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

// Grain is the chunk length a loop of n elements of perElem nanoseconds
// each gets on a pool of workers, with no options.
func Grain(n, workers int, perElem float64) int { return defaultConfig.grain(n, workers, perElem) }
