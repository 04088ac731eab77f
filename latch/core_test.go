package latch_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/weftrt/weft/latch"
)

// TestCoreTransitions walks every owner operation from every state.
func TestCoreTransitions(t *testing.T) {
	type op struct {
		name string
		do   func(*latch.Core) bool
	}
	getSleepy := op{"GetSleepy", (*latch.Core).GetSleepy}
	fallAsleep := op{"FallAsleep", (*latch.Core).FallAsleep}
	wakeUp := op{"WakeUp", func(c *latch.Core) bool { c.WakeUp(); return true }}
	set := op{"Set", (*latch.Core).Set}

	tests := []struct {
		from latch.State
		op   op
		want bool
		to   latch.State
	}{
		{latch.Unset, getSleepy, true, latch.Sleepy},
		{latch.Sleepy, getSleepy, false, latch.Sleepy},
		{latch.Set, getSleepy, false, latch.Set},
		{latch.Sleepy, fallAsleep, true, latch.Sleeping},
		{latch.Unset, fallAsleep, false, latch.Unset},
		{latch.Set, fallAsleep, false, latch.Set},
		{latch.Sleeping, wakeUp, true, latch.Unset},
		{latch.Set, wakeUp, true, latch.Set},
		{latch.Unset, set, false, latch.Set},
		{latch.Sleepy, set, false, latch.Set},
		{latch.Sleeping, set, true, latch.Set},
		{latch.Set, set, false, latch.Set},
	}
	for _, tt := range tests {
		t.Run(tt.from.String()+"/"+tt.op.name, func(t *testing.T) {
			c := coreIn(t, tt.from)
			assert.Equal(t, tt.want, tt.op.do(c))
			assert.Equal(t, tt.to, c.State())
			assert.Equal(t, tt.to == latch.Set, c.Probe())
		})
	}
}

// coreIn drives a fresh latch into state s through the owner's operations.
func coreIn(t *testing.T, s latch.State) *latch.Core {
	var c latch.Core
	switch s {
	case latch.Set:
		c.Set()
	case latch.Sleeping:
		require.True(t, c.GetSleepy())
		require.True(t, c.FallAsleep())
	case latch.Sleepy:
		require.True(t, c.GetSleepy())
	}
	require.Equal(t, s, c.State())
	return &c
}

func TestCoreReset(t *testing.T) {
	var c latch.Core
	c.Set()
	c.Reset()
	assert.Equal(t, latch.Unset, c.State())
	assert.False(t, c.Probe())
}

func TestStateString(t *testing.T) {
	assert.Equal(t, "Sleeping", latch.Sleeping.String())
	assert.Equal(t, "State(invalid)", latch.State(9).String())
}
