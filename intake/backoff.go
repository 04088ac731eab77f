package intake

import (
	"math/rand/v2"
	"time"
)

// Backoff maps an attempt count (1 for the first failure) to a delay.
type Backoff func(attempt int) time.Duration

// Exponential returns a Backoff that doubles from base up to limit, with
// the upper half of each step drawn at random: workers that failed
// together (a server went away) do not come back in lockstep.
// Exponential(0, 0) never waits.
func Exponential(base, limit time.Duration) Backoff {
	return func(attempt int) time.Duration {
		if base <= 0 {
			return 0
		}
		d := base
		for i := 1; i < attempt && d < limit; i++ {
			d *= 2
		}
		d = min(d, limit)
		half := d / 2
		return half + rand.N(d-half+1)
	}
}
