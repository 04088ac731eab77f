package weftotel

import (
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/weftrt/weft/otel/internal/observe"
	"github.com/weftrt/weft/slots"
)

// The attribute that splits a slot count by what the slots are doing.
var slotState = attribute.Key("weft.slot.state")

// slotFigures are the instruments of one Tracker's figures (slots.Stats),
// named prefix+"count" and so on, read through stats from the snapshot
// of the component that owns the Tracker.
func slotFigures[S any](prefix string, stats func(S) slots.Stats) []observe.Figure[S] {
	bounded := func(s S) bool { return stats(s).Max > 0 }
	return []observe.Figure[S]{
		observe.Level(prefix+"count", "{slot}", "Slots by state: running a task (used), reserved and not yet used, free (available, only when the supplier has a maximum).",
			func(s S) int64 { return int64(stats(s).InUse) }).In(slotState.String("used")),
		observe.Level(prefix+"count", "{slot}", "",
			func(s S) int64 { return int64(stats(s).Reserved) }).In(slotState.String("reserved")),
		observe.Level(prefix+"count", "{slot}", "",
			func(s S) int64 { return int64(stats(s).Available) }).In(slotState.String("available")).When(bounded),
		observe.Level(prefix+"max", "{slot}", "The supplier's maximum of slots (reported only when it has one).",
			func(s S) int64 { return int64(stats(s).Max) }).When(bounded),
		observe.Count(prefix+"issued", "{permit}", "Permits handed out.",
			func(s S) uint64 { return stats(s).Issued }),
		observe.Count(prefix+"refused", "{reservation}", "TryReserve calls that found no slot free.",
			func(s S) uint64 { return stats(s).Refusals }),
		observe.Count(prefix+"failed", "{reservation}", "Reserve calls that returned an error (context ended, supplier paused, ...).",
			func(s S) uint64 { return stats(s).Failures }),
		observe.Count(prefix+"leaked", "{permit}", "Permits dropped without a release and reclaimed.",
			func(s S) uint64 { return stats(s).Leaked }),
	}
}

var trackerFigures = slotFigures("weft.slot.", func(s slots.Stats) slots.Stats { return s })

// InstrumentTracker reports t's figures (slots.Stats) on instruments of a
// meter from mp, read from a Stats snapshot each time a reader collects.
// Use it for a Tracker of your own; a pool's and a task worker's slots
// come with InstrumentPool and InstrumentWorker. The supplier's own
// figures (a ResourceBased supplier's budget and readings) come with
// InstrumentSupplier.
//
// Unregister the returned Registration when t is no longer watched; until
// then it holds t. It returns an error only if mp refuses an instrument
// or the callback. A nil mp or t panics.
func InstrumentTracker(mp metric.MeterProvider, t *slots.Tracker, opts ...Option) (metric.Registration, error) {
	mustHave(mp, t != nil, "InstrumentTracker", "*slots.Tracker")
	snap := func() (slots.Stats, bool) { return t.Stats(), true }
	return observe.Register(meter(mp), config(opts).Attributes(slotsName), snap, trackerFigures)
}

// slotsName is the attribute naming a Tracker or a supplier (WithName).
const slotsName = "weft.slots.name"
