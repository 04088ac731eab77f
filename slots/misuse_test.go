package slots_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/weftrt/weft/slots"
)

// TestResourceBasedRefusesReleasesOfPermitsNotOut: called directly (as a
// wrapping supplier calls its inner one), ResourceBased must not take back
// a slot for a permit that holds none of its slots: one released twice,
// one a Tracker still holds, or one another supplier issued. Taking it
// back would free a slot that is still in use and let more than MaxSlots
// out. Fixed already refuses them (TestFixedPanics).
func TestResourceBasedRefusesReleasesOfPermitsNotOut(t *testing.T) {
	s, err := slots.NewResourceBased(slots.ResourceOptions{
		TargetCPU: 0.5, TargetMemory: 0.5, MinSlots: 1, MaxSlots: 1, Sampler: &fixedReading{},
	})
	require.NoError(t, err)
	p, ok := s.TryReserveSlot(noRC)
	require.True(t, ok)
	s.ReleaseSlot(slots.ReleaseInfo{Permit: p})
	q, ok := s.TryReserveSlot(noRC)
	require.True(t, ok)

	require.PanicsWithValue(t, "weft/slots: ResourceBased.ReleaseSlot of "+p.String()+", which is not out",
		func() { s.ReleaseSlot(slots.ReleaseInfo{Permit: p}) }, "a second release of a permit was taken")
	foreign := slots.NewPermit(nil)
	require.PanicsWithValue(t, "weft/slots: ResourceBased.ReleaseSlot of "+foreign.String()+", which it did not issue",
		func() { s.ReleaseSlot(slots.ReleaseInfo{Permit: foreign}) }, "a permit of another supplier was taken")
	fp, _ := slots.NewFixed(1).TryReserveSlot(noRC)
	require.Panics(t, func() { s.ReleaseSlot(slots.ReleaseInfo{Permit: fp}) }, "a Fixed's permit was taken")

	_, ok = s.TryReserveSlot(noRC)
	require.False(t, ok, "a second slot granted with MaxSlots 1 while %v is out", q)
	s.ReleaseSlot(slots.ReleaseInfo{Permit: q})
	require.Zero(t, s.State().Held)

	// Through a Tracker: a direct release of a permit the Tracker holds.
	tr := slots.NewTracker(s)
	tp, ok := tr.TryReserve("")
	require.True(t, ok)
	require.PanicsWithValue(t, "weft/slots: ResourceBased.ReleaseSlot of "+tp.String()+", which is not out",
		func() { s.ReleaseSlot(slots.ReleaseInfo{Permit: tp}) })
	require.NoError(t, tr.Release(tp, slots.NeverUsed()))
	require.Zero(t, s.State().Held)
}

// TestTrackerNilContextNamesTheMistake: a nil ctx is a programmer's
// error; the panic must say so, as the pools' does, rather than be a nil
// pointer dereference deep in a supplier.
func TestTrackerNilContextNamesTheMistake(t *testing.T) {
	for name, s := range map[string]slots.Supplier{
		"fixed":     slots.NewFixed(1),
		"unlimited": slots.Unlimited{},
		"pauseable": slots.NewPauseable(slots.NewFixed(1)),
	} {
		t.Run(name, func(t *testing.T) {
			tr := slots.NewTracker(s)
			var v any
			func() {
				defer func() { v = recover() }()
				//lint:ignore SA1012 the nil Context is the misuse under test
				_, _ = tr.Reserve(nil, "")
			}()
			msg, ok := v.(string)
			require.True(t, ok, "Reserve(nil) panicked with %v (%T), not a message", v, v)
			require.Contains(t, msg, "nil context")
			require.Zero(t, tr.Stats().Reserved)
		})
	}
}
