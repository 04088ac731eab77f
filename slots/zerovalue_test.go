package slots_test

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/weftrt/weft/slots"
)

// requireClearPanic checks that f panics with a message of the package
// (not a runtime error such as a nil dereference) that contains want.
func requireClearPanic(t *testing.T, want string, f func(), what string) {
	t.Helper()
	got := func() (r any) {
		defer func() { r = recover() }()
		f()
		return nil
	}()
	require.NotNil(t, got, "%s did not panic", what)
	_, isRuntime := got.(runtime.Error)
	require.False(t, isRuntime, "%s: raw runtime panic %v", what, got)
	msg := fmt.Sprint(got)
	require.True(t, strings.HasPrefix(msg, "weft/slots:"), "%s: panic %q is not the package's", what, msg)
	require.Contains(t, msg, want, what)
}

// TestZeroValues: every exported supplier, the Tracker and the Permit,
// used as a zero value or through a nil pointer, either works as its
// documentation says or panics with a message naming its constructor,
// never with a nil dereference.
func TestZeroValues(t *testing.T) {
	ctx := context.Background()
	stray := slots.NewPermit(nil)
	supplierCalls := func(s slots.Supplier) map[string]func() {
		return map[string]func(){
			"ReserveSlot":    func() { _, _ = s.ReserveSlot(ctx, noRC) },
			"TryReserveSlot": func() { s.TryReserveSlot(noRC) },
			"ReleaseSlot":    func() { s.ReleaseSlot(slots.ReleaseInfo{Permit: stray}) },
			"MaxSlots":       func() { s.MaxSlots() },
		}
	}
	unusable := []struct {
		name, ctor string
		calls      map[string]func()
	}{
		{"zero Fixed", "NewFixed", supplierCalls(new(slots.Fixed))},
		{"nil Fixed", "NewFixed", supplierCalls((*slots.Fixed)(nil))},
		{"zero ResourceBased", "NewResourceBased", supplierCalls(new(slots.ResourceBased))},
		{"nil ResourceBased", "NewResourceBased", supplierCalls((*slots.ResourceBased)(nil))},
		{"zero ResourceBased State", "NewResourceBased", map[string]func(){"State": func() { new(slots.ResourceBased).State() }}},
		{"zero Pauseable", "NewPauseable", supplierCalls(new(slots.Pauseable))},
		{"nil Pauseable", "NewPauseable", supplierCalls((*slots.Pauseable)(nil))},
	}
	for _, p := range []*slots.Pauseable{new(slots.Pauseable), nil} {
		unusable = append(unusable, struct {
			name, ctor string
			calls      map[string]func()
		}{fmt.Sprintf("Pauseable %p controls", p), "NewPauseable", map[string]func(){
			"Pause":        func() { p.Pause(slots.PauseOptions{CancelOutstanding: true}) },
			"Resume":       func() { p.Resume() },
			"Paused":       func() { p.Paused() },
			"Inner":        func() { p.Inner() },
			"MarkSlotUsed": func() { p.MarkSlotUsed(slots.UsedInfo{Permit: stray}) },
		}})
	}
	for _, tr := range []*slots.Tracker{new(slots.Tracker), nil} {
		unusable = append(unusable, struct {
			name, ctor string
			calls      map[string]func()
		}{fmt.Sprintf("Tracker %p", tr), "NewTracker", map[string]func(){
			"Reserve":    func() { _, _ = tr.Reserve(ctx, "") },
			"TryReserve": func() { tr.TryReserve("") },
			"MarkUsed":   func() { _ = tr.MarkUsed(stray, slots.TaskInfo{}) },
			"Release":    func() { _ = tr.Release(stray, slots.TaskComplete()) },
			"Stats":      func() { tr.Stats() },
			"UsedSlots":  func() { tr.UsedSlots() },
			"Supplier":   func() { tr.Supplier() },
		}})
	}
	for _, c := range unusable {
		for method, call := range c.calls {
			requireClearPanic(t, c.ctor, call, c.name+"."+method)
		}
	}

	// MarkSlotUsed of a Fixed or a ResourceBased does nothing whatever
	// the supplier, as documented.
	require.NotPanics(t, func() { new(slots.Fixed).MarkSlotUsed(slots.UsedInfo{}) })
	require.NotPanics(t, func() { new(slots.ResourceBased).MarkSlotUsed(slots.UsedInfo{}) })

	// The zero Unlimited is ready to use.
	var u slots.Unlimited
	p, err := u.ReserveSlot(ctx, noRC)
	require.NoError(t, err)
	require.False(t, p.IsZero())
	u.ReleaseSlot(slots.ReleaseInfo{Permit: p})
	require.Zero(t, u.MaxSlots())
	tr := slots.NewTracker(u)
	p, err = tr.Reserve(ctx, "")
	require.NoError(t, err)
	require.NoError(t, tr.Release(p, slots.TaskComplete()))

	// The zero Permit holds no slot: a Tracker refuses it with an error,
	// and the built-in suppliers with a panic.
	var zero slots.Permit
	require.True(t, zero.IsZero())
	require.Zero(t, zero.ID())
	require.Nil(t, zero.Data())
	require.Equal(t, "permit 0", zero.String())
	require.ErrorIs(t, tr.Release(zero, slots.TaskComplete()), slots.ErrUnknownPermit)
	require.ErrorIs(t, tr.MarkUsed(zero, slots.TaskInfo{}), slots.ErrUnknownPermit)
	rb, err := slots.NewResourceBased(slots.ResourceOptions{TargetCPU: 0.5, TargetMemory: 0.5, MinSlots: 1, Sampler: &fixedReading{}})
	require.NoError(t, err)
	held, ok := rb.TryReserveSlot(noRC)
	require.True(t, ok)
	for name, s := range map[string]slots.Supplier{"Fixed": slots.NewFixed(1), "ResourceBased": rb, "Pauseable": slots.NewPauseable(slots.NewFixed(1))} {
		requireClearPanic(t, "", func() { s.ReleaseSlot(slots.ReleaseInfo{Permit: zero}) }, name+".ReleaseSlot(zero Permit)")
	}
	require.Equal(t, 1, rb.State().Held, "the zero Permit took a slot back")
	rb.ReleaseSlot(slots.ReleaseInfo{Permit: held})

	// The zero ReserveContext and ReleaseReason are usable as documented.
	var rc slots.ReserveContext
	require.Empty(t, rc.Kind())
	require.Zero(t, rc.Issued()+uint64(rc.InUse()+rc.Reserved()))
	require.Nil(t, rc.UsedSlots())
	require.Equal(t, slots.ReasonComplete, slots.ReleaseReason{}.Kind())
}
