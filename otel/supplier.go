package weftotel

import (
	"go.opentelemetry.io/otel/metric"

	"github.com/weftrt/weft/otel/internal/observe"
	"github.com/weftrt/weft/slots"
)

// supplierStats is what a collection reads from a supplier.
type supplierStats struct {
	max               int
	pauseable, paused bool
	resource          bool
	state             slots.ResourceState // when resource
}

func readSupplier(s slots.Supplier) supplierStats {
	st := supplierStats{max: s.MaxSlots()}
	if p, ok := s.(*slots.Pauseable); ok {
		st.pauseable, st.paused = true, p.Paused()
		s = p.Inner()
	}
	if r, ok := s.(*slots.ResourceBased); ok {
		st.resource, st.state = true, r.State()
	}
	return st
}

func isResource(s supplierStats) bool { return s.resource }

var supplierFigures = []observe.Figure[supplierStats]{
	observe.Level("weft.supplier.max", "{slot}", "The supplier's MaxSlots (reported only when it has a maximum).",
		func(s supplierStats) int64 { return int64(s.max) }).When(func(s supplierStats) bool { return s.max > 0 }),
	observe.Flag("weft.supplier.paused", "{supplier}", "1 while a Pauseable supplier is paused, else 0.",
		func(s supplierStats) bool { return s.paused }).When(func(s supplierStats) bool { return s.pauseable }),
	observe.Level("weft.supplier.budget", "{slot}", "Slots a ResourceBased supplier lets out, as of its last good reading.",
		func(s supplierStats) int64 { return int64(s.state.Budget) }).When(isResource),
	observe.Level("weft.supplier.held", "{slot}", "Slots out of a ResourceBased supplier, for all its Trackers.",
		func(s supplierStats) int64 { return int64(s.state.Held) }).When(isResource),
	observe.Reading("weft.supplier.cpu.utilization", "1", "A ResourceBased supplier's last good CPU reading: the fraction of the process's allowance used.",
		func(s supplierStats) float64 { return s.state.Usage.CPU }).When(isResource),
	observe.Reading("weft.supplier.memory.utilization", "1", "A ResourceBased supplier's last good memory reading: the fraction of the process's allowance used.",
		func(s supplierStats) float64 { return s.state.Usage.Memory }).When(isResource),
	observe.Count("weft.supplier.readings.skipped", "{reading}", "A ResourceBased supplier's readings that failed, panicked or held garbage.",
		func(s supplierStats) uint64 { return s.state.Skipped }).When(isResource),
}

// InstrumentSupplier reports a slot supplier's own figures on instruments
// of a meter from mp, read each time a reader collects: its maximum of
// slots; for a Pauseable, whether it is paused; for a ResourceBased
// (alone or inside a Pauseable), its budget, the slots out, and its last
// CPU and memory readings (ResourceBased.State). The slots in use and
// reserved are a Tracker's figures: see InstrumentPool, InstrumentWorker
// and InstrumentTracker.
//
// Unregister the returned Registration when s is no longer watched; until
// then it holds s. It returns an error only if mp refuses an instrument
// or the callback. A nil mp or s panics, and so does a supplier whose
// MaxSlots panics (a ResourceBased not made by NewResourceBased).
func InstrumentSupplier(mp metric.MeterProvider, s slots.Supplier, opts ...Option) (metric.Registration, error) {
	mustHave(mp, s != nil, "InstrumentSupplier", "slots.Supplier")
	readSupplier(s) // a misuse panics here, not in a collection
	snap := func() (supplierStats, bool) { return readSupplier(s), true }
	return observe.Register(meter(mp), config(opts).Attributes(slotsName), snap, supplierFigures)
}
