package weftotel_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"

	weftotel "github.com/weftrt/weft/otel"
	"github.com/weftrt/weft/slots"
)

var cache = []attribute.KeyValue{attribute.String("weft.slots.name", "cache")}

// countingSupplier is a Fixed that counts the calls a collection makes
// into it (a Tracker's Stats asks MaxSlots).
type countingSupplier struct {
	*slots.Fixed
	calls atomic.Int64
}

func (s *countingSupplier) MaxSlots() int {
	s.calls.Add(1)
	return s.Fixed.MaxSlots()
}

// A Tracker's figures follow its permits, and once the registration is
// removed a collection no longer calls into the Tracker or its supplier
// and reports nothing.
func TestTrackerFiguresAndUnregister(t *testing.T) {
	mp, r := newProvider(t)
	sup := &countingSupplier{Fixed: slots.NewFixed(2)}
	tr := slots.NewTracker(sup)
	reg, err := weftotel.InstrumentTracker(mp, tr, weftotel.WithName("cache"))
	require.NoError(t, err)
	state := func(s string) []attribute.KeyValue { return with(cache, attribute.String("weft.slot.state", s)) }

	p1, err := tr.Reserve(context.Background(), "get")
	require.NoError(t, err)
	p2, ok := tr.TryReserve("get")
	require.True(t, ok)
	require.NoError(t, tr.MarkUsed(p1, slots.TaskInfo{Kind: "get"}))
	_, ok = tr.TryReserve("get")
	require.False(t, ok)

	got := collect(t, r)
	assert.EqualValues(t, 1, value(t, got, "weft.slot.count", state("used")...))
	assert.EqualValues(t, 1, value(t, got, "weft.slot.count", state("reserved")...))
	assert.EqualValues(t, 0, value(t, got, "weft.slot.count", state("available")...))
	assert.EqualValues(t, 2, value(t, got, "weft.slot.max", cache...))
	assert.EqualValues(t, 2, value(t, got, "weft.slot.issued", cache...))
	assert.EqualValues(t, 1, value(t, got, "weft.slot.refused", cache...))
	require.NoError(t, tr.Release(p1, slots.TaskComplete()))
	require.NoError(t, tr.Release(p2, slots.NeverUsed()))

	require.NoError(t, reg.Unregister())
	before := sup.calls.Load()
	for name, m := range collect(t, r) {
		assert.Empty(t, points(m), name)
	}
	assert.Equal(t, before, sup.calls.Load(), "a collection called the supplier after Unregister")
}

// An unbounded supplier has no maximum and no free slots to report.
func TestUnboundedTrackerReportsNoMaxNorAvailable(t *testing.T) {
	mp, r := newProvider(t)
	reg, err := weftotel.InstrumentTracker(mp, slots.NewTracker(slots.Unlimited{}))
	require.NoError(t, err)
	defer func() { require.NoError(t, reg.Unregister()) }()
	got := collect(t, r)
	assert.Empty(t, points(got["weft.slot.max"]))
	assert.Len(t, points(got["weft.slot.count"]), 2, "used and reserved only")
}

// fakeSampler reads what the test sets.
type fakeSampler struct {
	mu sync.Mutex
	u  slots.Usage
}

func (f *fakeSampler) Sample() (slots.Usage, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.u, nil
}

// A ResourceBased supplier inside a Pauseable reports its budget, the
// slots out, its last readings and whether it is paused.
func TestSupplierFiguresShowBudgetReadingsAndPause(t *testing.T) {
	mp, r := newProvider(t)
	rb, err := slots.NewResourceBased(slots.ResourceOptions{TargetCPU: 0.8, TargetMemory: 0.9, MinSlots: 1, MaxSlots: 8,
		Sampler: &fakeSampler{u: slots.Usage{CPU: 0.25, Memory: 0.5}}})
	require.NoError(t, err)
	ps := slots.NewPauseable(rb)
	reg, err := weftotel.InstrumentSupplier(mp, ps, weftotel.WithName("cache"))
	require.NoError(t, err)
	defer func() { require.NoError(t, reg.Unregister()) }()

	tr := slots.NewTracker(ps)
	p, err := tr.Reserve(context.Background(), "get") // takes the first reading
	require.NoError(t, err)
	ps.Pause(slots.PauseOptions{})
	got := collect(t, r)
	assert.EqualValues(t, 1, value(t, got, "weft.supplier.paused", cache...))
	assert.EqualValues(t, 8, value(t, got, "weft.supplier.max", cache...))
	assert.EqualValues(t, 1, value(t, got, "weft.supplier.held", cache...))
	assert.EqualValues(t, rb.State().Budget, value(t, got, "weft.supplier.budget", cache...))
	assert.Equal(t, 0.25, value(t, got, "weft.supplier.cpu.utilization", cache...))
	assert.Equal(t, 0.5, value(t, got, "weft.supplier.memory.utilization", cache...))
	assert.EqualValues(t, 0, value(t, got, "weft.supplier.readings.skipped", cache...))

	ps.Resume()
	require.NoError(t, tr.Release(p, slots.TaskComplete()))
	got = collect(t, r)
	assert.EqualValues(t, 0, value(t, got, "weft.supplier.paused", cache...))
	assert.EqualValues(t, 0, value(t, got, "weft.supplier.held", cache...))
}

// A plain Fixed has only a maximum to report.
func TestFixedSupplierReportsItsMax(t *testing.T) {
	mp, r := newProvider(t)
	reg, err := weftotel.InstrumentSupplier(mp, slots.NewFixed(3))
	require.NoError(t, err)
	defer func() { require.NoError(t, reg.Unregister()) }()
	got := collect(t, r)
	assert.EqualValues(t, 3, value(t, got, "weft.supplier.max"))
	assert.Empty(t, points(got["weft.supplier.budget"]))
}
