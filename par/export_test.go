package par

import "time"

// WithClock makes a loop's probe read f instead of the monotonic clock.
func WithClock(f func() time.Duration) Option {
	return func(c *config) { c.clock = f }
}
