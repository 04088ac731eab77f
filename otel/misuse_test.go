package weftotel_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	metricnoop "go.opentelemetry.io/otel/metric/noop"

	weftotel "github.com/weftrt/weft/otel"
	"github.com/weftrt/weft/scheduler"
	"github.com/weftrt/weft/slots"
)

// A nil provider or component panics at the call, naming it, not later
// in a collection.
func TestNilArgumentsPanicNamingThem(t *testing.T) {
	mp := metricnoop.NewMeterProvider()
	assert.PanicsWithValue(t, "weft/otel: InstrumentPool: nil metric.MeterProvider (pass otel.GetMeterProvider() for the global one)",
		func() { _, _ = weftotel.InstrumentPool(nil, &scheduler.Pool{}) })
	assert.PanicsWithValue(t, "weft/otel: InstrumentPool: nil *scheduler.Pool", func() { _, _ = weftotel.InstrumentPool(mp, nil) })
	assert.PanicsWithValue(t, "weft/otel: InstrumentTracker: nil *slots.Tracker", func() { _, _ = weftotel.InstrumentTracker(mp, nil) })
	assert.PanicsWithValue(t, "weft/otel: InstrumentSupplier: nil slots.Supplier", func() { _, _ = weftotel.InstrumentSupplier(mp, nil) })
	assert.PanicsWithValue(t, "weft/otel: InstrumentWorker: nil *intake.Worker", func() { _, _ = weftotel.InstrumentWorker(mp, nil) })
	assert.Panics(t, func() { _, _ = weftotel.InstrumentSupplier(mp, &slots.ResourceBased{}) }, "a ResourceBased not made by NewResourceBased")
}
