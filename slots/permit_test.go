package slots_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/weftrt/weft/slots"
)

func TestPermitIDsAreUniqueAndCarryData(t *testing.T) {
	a, b := slots.NewPermit("a"), slots.NewPermit(nil)
	require.NotZero(t, a.ID())
	require.NotEqual(t, a.ID(), b.ID())
	require.Equal(t, "a", a.Data())
	require.Nil(t, b.Data())
	require.False(t, a.IsZero())
	require.Equal(t, fmt.Sprintf("permit %d", a.ID()), a.String())

	var zero slots.Permit
	require.True(t, zero.IsZero())
	require.Zero(t, zero.ID())
	require.Nil(t, zero.Data())
}

func TestFixedPermitsAreFreshPerReservation(t *testing.T) {
	f := slots.NewFixed(1)
	seen := map[uint64]bool{}
	for range 3000 { // crosses the id blocks a record takes
		p, ok := f.TryReserveSlot(slots.ReserveContext{})
		require.True(t, ok)
		require.False(t, seen[p.ID()], "id %d issued twice", p.ID())
		seen[p.ID()] = true
		f.ReleaseSlot(slots.ReleaseInfo{Permit: p})
	}
}

func TestReleaseReasons(t *testing.T) {
	errTask := errors.New("task broke")
	wrapped := fmt.Errorf("run: %w", errTask)
	cases := []struct {
		r    slots.ReleaseReason
		kind slots.ReasonKind
		err  error
		str  string
	}{
		{slots.TaskComplete(), slots.ReasonComplete, nil, "complete"},
		{slots.ReleaseReason{}, slots.ReasonComplete, nil, "complete"},
		{slots.NeverUsed(), slots.ReasonNeverUsed, nil, "never used"},
		{slots.TaskFailed(wrapped), slots.ReasonFailed, wrapped, "failed: run: task broke"},
	}
	for _, c := range cases {
		require.Equal(t, c.kind, c.r.Kind(), c.str)
		require.Equal(t, c.err, c.r.Err(), c.str)
		require.Equal(t, c.str, c.r.String())
	}
	require.ErrorIs(t, slots.TaskFailed(wrapped).Err(), errTask)
	require.Equal(t, "ReasonKind(7)", slots.ReasonKind(7).String())
	require.PanicsWithValue(t, "weft/slots: TaskFailed with a nil error", func() { slots.TaskFailed(nil) })
}
