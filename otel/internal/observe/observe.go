// Package observe turns a component's Stats snapshot into OpenTelemetry
// observable instruments: a table of figures, each naming an instrument
// and how to read it from a snapshot, and one callback that takes the
// snapshot once per collection and observes every figure. weftotel and
// weftjsotel build their instruments with it.
package observe

import (
	"context"
	"fmt"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
)

// Config is what the public packages' options set.
type Config struct {
	Name  string               // the component's name; "" for none
	Attrs []attribute.KeyValue // attributes on every figure
}

// Attributes returns c's attributes, with the name under nameKey first
// when there is one.
func (c Config) Attributes(nameKey attribute.Key) []attribute.KeyValue {
	attrs := make([]attribute.KeyValue, 0, len(c.Attrs)+1)
	if c.Name != "" {
		attrs = append(attrs, nameKey.String(c.Name))
	}
	return append(attrs, c.Attrs...)
}

// Register creates the instruments figs name on m and one callback that,
// at each collection, calls snap and observes each figure that snap's
// snapshot has (see Figure.When), with base and the figure's state as
// attributes. snap returning false (a closed pool) observes nothing, so
// the component's series drop out of the next collection.
//
// Figures with the same name share one instrument (one per state of a
// count); they must agree on its kind, unit and description.
func Register[S any](m metric.Meter, base []attribute.KeyValue, snap func() (S, bool), figs []Figure[S]) (metric.Registration, error) {
	insts := make(map[string]metric.Observable, len(figs))
	obs := make([]observation[S], len(figs))
	for i, f := range figs {
		inst, ok := insts[f.Name]
		if !ok {
			var err error
			if inst, err = f.instrument(m); err != nil {
				return nil, fmt.Errorf("weft/otel: instrument %s: %w", f.Name, err)
			}
			insts[f.Name] = inst
		}
		attrs := append(append([]attribute.KeyValue(nil), base...), f.states...)
		obs[i] = observation[S]{f, inst, metric.WithAttributeSet(attribute.NewSet(attrs...))}
	}
	list := make([]metric.Observable, 0, len(insts))
	for _, inst := range insts {
		list = append(list, inst)
	}
	return m.RegisterCallback(func(_ context.Context, o metric.Observer) error {
		s, ok := snap()
		if !ok {
			return nil
		}
		for i := range obs {
			obs[i].observe(o, s)
		}
		return nil
	}, list...)
}

// observation is a figure with its instrument and attributes, made once
// at registration so that a collection allocates nothing for them.
type observation[S any] struct {
	Figure[S]
	inst  metric.Observable
	attrs metric.MeasurementOption
}

func (ob *observation[S]) observe(o metric.Observer, s S) {
	if ob.when != nil && !ob.when(s) {
		return
	}
	switch inst := ob.inst.(type) {
	case metric.Int64Observable:
		o.ObserveInt64(inst, ob.int(s), ob.attrs)
	case metric.Float64Observable:
		o.ObserveFloat64(inst, ob.float(s), ob.attrs)
	}
}
