package weftotel_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
)

// newProvider returns a MeterProvider whose figures the returned reader
// collects on demand; both are shut down when t ends.
func newProvider(t testing.TB) (*sdkmetric.MeterProvider, *sdkmetric.ManualReader) {
	r := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(r))
	t.Cleanup(func() { require.NoError(t, mp.Shutdown(context.Background())) })
	return mp, r
}

// collect runs one collection and returns the metrics by name.
func collect(t testing.TB, r *sdkmetric.ManualReader) map[string]metricdata.Metrics {
	t.Helper()
	var rm metricdata.ResourceMetrics
	require.NoError(t, r.Collect(context.Background(), &rm))
	got := map[string]metricdata.Metrics{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			got[m.Name] = m
		}
	}
	return got
}

// kind names m's instrument type as docs/metrics.md does.
func kind(m metricdata.Metrics) string {
	switch d := m.Data.(type) {
	case metricdata.Sum[int64]:
		if d.IsMonotonic {
			return "Counter"
		}
		return "UpDownCounter"
	case metricdata.Gauge[int64], metricdata.Gauge[float64]:
		return "Gauge"
	}
	return "?"
}

// points returns m's data points as values by attribute set.
func points(m metricdata.Metrics) map[attribute.Set]float64 {
	out := map[attribute.Set]float64{}
	switch d := m.Data.(type) {
	case metricdata.Sum[int64]:
		for _, p := range d.DataPoints {
			out[p.Attributes] = float64(p.Value)
		}
	case metricdata.Gauge[int64]:
		for _, p := range d.DataPoints {
			out[p.Attributes] = float64(p.Value)
		}
	case metricdata.Gauge[float64]:
		for _, p := range d.DataPoints {
			out[p.Attributes] = p.Value
		}
	}
	return out
}

// value returns the value of the metric name, collected in got, at the
// point whose attributes are exactly attrs; it fails t if there is none.
func value(t testing.TB, got map[string]metricdata.Metrics, name string, attrs ...attribute.KeyValue) float64 {
	t.Helper()
	m, ok := got[name]
	require.True(t, ok, "no metric %s", name)
	v, ok := points(m)[attribute.NewSet(attrs...)]
	require.True(t, ok, "%s has no point with attributes %v: %v", name, attrs, points(m))
	return v
}
