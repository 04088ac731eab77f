package weftotel

import (
	"go.opentelemetry.io/otel/attribute"

	"github.com/weftrt/weft/otel/internal/observe"
)

// Option configures one Instrument call.
type Option func(*observe.Config)

// WithName names the component: every figure it reports carries the name
// as an attribute, weft.pool.name for a pool, weft.slots.name for a
// Tracker or a supplier, weft.intake.name for a task worker. Name each
// component you instrument on one MeterProvider: two unnamed pools report
// under the same attributes, and a collection keeps only one of their
// figures.
func WithName(name string) Option {
	return func(c *observe.Config) { c.Name = name }
}

// WithAttributes adds attributes to every figure the component reports
// (a tenant, a queue, a region). They come after the name, in the order
// given.
func WithAttributes(attrs ...attribute.KeyValue) Option {
	return func(c *observe.Config) { c.Attrs = append(c.Attrs, attrs...) }
}

func config(opts []Option) observe.Config {
	var c observe.Config
	for _, o := range opts {
		if o != nil {
			o(&c)
		}
	}
	return c
}
