package weftotel

import (
	"go.opentelemetry.io/otel/metric"
)

// ScopeName is the instrumentation scope of every instrument this package
// makes (OpenTelemetry's name for the library that reports them).
const ScopeName = "github.com/weftrt/weft/otel"

func meter(mp metric.MeterProvider) metric.Meter { return mp.Meter(ScopeName) }

// mustHave panics, naming the argument, if mp is nil or the component is
// (have is false).
func mustHave(mp metric.MeterProvider, have bool, fn, what string) {
	if mp == nil {
		panic("weft/otel: " + fn + ": nil metric.MeterProvider (pass otel.GetMeterProvider() for the global one)")
	}
	if !have {
		panic("weft/otel: " + fn + ": nil " + what)
	}
}
