package intake_test

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/weftrt/weft/intake"
)

// TestExponentialRejectsBadBounds: bounds that cannot be meant fail when
// the backoff is made, naming the value, not when a worker first backs
// off.
func TestExponentialRejectsBadBounds(t *testing.T) {
	for name, c := range map[string]struct {
		base, limit time.Duration
		names       string
	}{
		"negative base":       {-time.Second, time.Second, "-1s"},
		"negative limit":      {time.Second, -time.Second, "-1s"},
		"limit below base":    {time.Second, time.Millisecond, "1ms"},
		"positive base, zero": {time.Second, 0, "limit 0s"},
		"zero base, positive": {0, time.Second, "limit 1s"},
	} {
		_, err := intake.NewExponential(c.base, c.limit)
		require.ErrorIs(t, err, intake.ErrBackoff, name)
		require.ErrorContains(t, err, c.names, name)

		pan := func() (r any) {
			defer func() { r = recover() }()
			intake.Exponential(c.base, c.limit)
			return nil
		}()
		require.NotNil(t, pan, "%s: Exponential(%v, %v) did not panic when made", name, c.base, c.limit)
		err, ok := pan.(error)
		require.True(t, ok, "%s: panic value %v is not an error", name, pan)
		require.ErrorIs(t, err, intake.ErrBackoff, name)
		require.ErrorContains(t, err, "weft/intake:", name)
	}
}

// TestExponentialStaysInBounds: every delay lies in the upper half of its
// step, up to limit, however many attempts, even for a limit so large that
// doubling toward it would overflow.
func TestExponentialStaysInBounds(t *testing.T) {
	for _, c := range []struct{ base, limit time.Duration }{
		{time.Millisecond, time.Second},
		{3, math.MaxInt64},
		{time.Second, time.Second},
	} {
		b, err := intake.NewExponential(c.base, c.limit)
		require.NoError(t, err)
		step := c.base
		for attempt := 1; attempt <= 200; attempt++ {
			d := b(attempt)
			require.GreaterOrEqual(t, d, step/2, "Exponential(%v, %v)(%d)", c.base, c.limit, attempt)
			require.LessOrEqual(t, d, step, "Exponential(%v, %v)(%d)", c.base, c.limit, attempt)
			if step > c.limit/2 {
				step = c.limit
			} else {
				step *= 2
			}
		}
	}
	require.Zero(t, intake.Exponential(0, 0)(5), "Exponential(0, 0) waits")
}
