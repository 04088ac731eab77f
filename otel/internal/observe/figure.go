package observe

import (
	"math"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
)

// Kind is the type of a figure's instrument.
type Kind int

const (
	// Counter is a monotonic sum: a count of events since the component
	// was made (Int64ObservableCounter).
	Counter Kind = iota
	// UpDownCounter is a sum that goes both ways: things there are now
	// (Int64ObservableUpDownCounter), as OpenTelemetry's conventions have
	// it for counts of workers, slots, tasks.
	UpDownCounter
	// Gauge is a reading that does not add up across components: a
	// latency, a fraction, a ratio, a backlog (Float64ObservableGauge, or
	// Int64ObservableGauge for a whole number).
	Gauge
)

func (k Kind) String() string {
	return [...]string{"Counter", "UpDownCounter", "Gauge"}[k]
}

// Figure is one value read from a snapshot S and the instrument it is
// observed on. Make one with Count, Level, Reading, Whole or Flag.
type Figure[S any] struct {
	Name, Unit, Desc string
	Kind             Kind

	int    func(S) int64   // nil for a float figure
	float  func(S) float64 // nil for an int figure
	when   func(S) bool    // nil: always observed
	states []attribute.KeyValue
}

// Count is a counter read from a snapshot's running total.
func Count[S any](name, unit, desc string, read func(S) uint64) Figure[S] {
	return Figure[S]{Name: name, Unit: unit, Desc: desc, Kind: Counter,
		int: func(s S) int64 { return int64(min(read(s), math.MaxInt64)) }}
}

// Level is an up-down counter read from a count of things there are now.
func Level[S any](name, unit, desc string, read func(S) int64) Figure[S] {
	return Figure[S]{Name: name, Unit: unit, Desc: desc, Kind: UpDownCounter, int: read}
}

// Reading is a float gauge.
func Reading[S any](name, unit, desc string, read func(S) float64) Figure[S] {
	return Figure[S]{Name: name, Unit: unit, Desc: desc, Kind: Gauge, float: read}
}

// Whole is an integer gauge: a count that does not add up across
// components (a backlog every worker of one queue reads alike).
func Whole[S any](name, unit, desc string, read func(S) int64) Figure[S] {
	return Figure[S]{Name: name, Unit: unit, Desc: desc, Kind: Gauge, int: read}
}

// Flag is an up-down counter of one component, 1 while cond holds and 0
// otherwise: summed over components, the number of them in that state
// (paused workers).
func Flag[S any](name, unit, desc string, cond func(S) bool) Figure[S] {
	return Level(name, unit, desc, func(s S) int64 {
		if cond(s) {
			return 1
		}
		return 0
	})
}

// When returns f observed only in snapshots for which cond holds (a
// maximum only when there is one).
func (f Figure[S]) When(cond func(S) bool) Figure[S] {
	f.when = cond
	return f
}

// In returns f observed with the attribute state, one of the states a
// count is split by (workers busy, searching, sleeping).
func (f Figure[S]) In(state attribute.KeyValue) Figure[S] {
	f.states = append(f.states[:len(f.states):len(f.states)], state)
	return f
}

// instrument creates f's instrument on m.
func (f Figure[S]) instrument(m metric.Meter) (metric.Observable, error) {
	d, u := metric.WithDescription(f.Desc), metric.WithUnit(f.Unit)
	switch {
	case f.Kind == Counter:
		return m.Int64ObservableCounter(f.Name, d, u)
	case f.Kind == UpDownCounter:
		return m.Int64ObservableUpDownCounter(f.Name, d, u)
	case f.float != nil:
		return m.Float64ObservableGauge(f.Name, d, u)
	default:
		return m.Int64ObservableGauge(f.Name, d, u)
	}
}
