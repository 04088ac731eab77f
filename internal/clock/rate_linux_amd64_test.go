package clock_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/weftrt/weft/internal/clock"
)

// TestRateScalesTheCounter checks the calibration's arithmetic on made-up
// readings: a counter at 2.6 GHz, paired with the runtime's clock at 500
// ns and 10 ms later, gives 1/2.6 ns a tick, and a counter reading maps
// back to the runtime clock's to the nanosecond. A counter that did not
// move forward, or moved at a rate no CPU's counter has, is refused.
func TestRateScalesTheCounter(t *testing.T) {
	origin := clock.NewPair(1_000, 500)
	later := clock.NewPair(1_000+26_000_000, 500+10*time.Millisecond)
	scale, ok := clock.Rate(origin, later)
	assert.True(t, ok)
	assert.InDelta(t, 1/2.6, scale, 1e-12)
	assert.InDelta(t, float64(500+time.Millisecond), float64(clock.At(origin, 1_000+2_600_000, scale)), 1)
	assert.InDelta(t, float64(500+time.Hour), float64(clock.At(origin, 1_000+2_600_000*3_600_000, scale)), 1_000)

	for _, tc := range []struct {
		name string
		to   clock.Pair
	}{
		{"counter stood still", clock.NewPair(1_000, time.Millisecond)},
		{"counter went back", clock.NewPair(999, time.Millisecond)},
		{"1 MHz", clock.NewPair(1_000+10_000, 500+10*time.Millisecond)},
		{"1 THz", clock.NewPair(1_000+10_000_000_000_000, 500+10*time.Millisecond)},
	} {
		_, ok := clock.Rate(origin, tc.to)
		assert.False(t, ok, tc.name)
	}
}
