package intake

import (
	"fmt"
	"math/rand/v2"
	"time"
)

// Backoff maps an attempt count (1 for the first failure) to a delay.
type Backoff func(attempt int) time.Duration

// NewExponential returns a Backoff that doubles from base up to limit,
// with the upper half of each step drawn at random: workers that failed
// together (a server went away) do not come back in lockstep.
// NewExponential(0, 0) never waits.
//
// It returns an error wrapping ErrBackoff, naming the value, for bounds
// that cannot be meant: a negative base, a limit below base, or a base of
// 0 with a positive limit (doubling 0 never reaches the limit).
func NewExponential(base, limit time.Duration) (Backoff, error) {
	switch {
	case base < 0:
		return nil, fmt.Errorf("%w: Exponential base %v: want base >= 0", ErrBackoff, base)
	case limit < base:
		return nil, fmt.Errorf("%w: Exponential limit %v below base %v: want limit >= base", ErrBackoff, limit, base)
	case base == 0 && limit > 0:
		return nil, fmt.Errorf("%w: Exponential base 0 with limit %v: doubling 0 never grows; want base > 0, or limit 0 for no delay", ErrBackoff, limit)
	}
	if base == 0 {
		return func(int) time.Duration { return 0 }, nil
	}
	return func(attempt int) time.Duration {
		d := base
		for i := 1; i < attempt && d < limit; i++ {
			if d > limit/2 { // doubling would pass limit, or overflow near the largest Duration
				d = limit
				break
			}
			d *= 2
		}
		half := d / 2
		return half + rand.N(d-half+1)
	}, nil
}

// Exponential is NewExponential for bounds fixed in the code: it panics
// at once, with NewExponential's error, for bounds NewExponential refuses,
// rather than handing a worker a Backoff that cannot work. Use
// NewExponential for bounds read from configuration.
func Exponential(base, limit time.Duration) Backoff {
	b, err := NewExponential(base, limit)
	if err != nil {
		panic(err)
	}
	return b
}
