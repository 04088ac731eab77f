package weftjsotel_test

import (
	"context"
	"os"
	"regexp"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/weftrt/weft/intake"
	weftjs "github.com/weftrt/weft/jetstream"
	"github.com/weftrt/weft/jetstream/natstest"
	weftotel "github.com/weftrt/weft/otel"
	weftjsotel "github.com/weftrt/weft/otel/jetstream"
)

// newSource starts a server, connects and makes a source on it; all are
// closed when t ends.
func newSource(t *testing.T) *weftjs.Source {
	ctx := context.Background()
	srv, err := natstest.Start(ctx, natstest.Options{Dir: t.TempDir()})
	require.NoError(t, err)
	t.Cleanup(func() { srv.Shutdown(ctx) })
	nc, err := weftjs.Connect(srv.URL())
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	require.NoError(t, err)
	src, err := weftjs.NewSource(ctx, js, weftjs.Config{Stream: "TASKS", AckWait: time.Minute, PollWait: 100 * time.Millisecond})
	require.NoError(t, err)
	t.Cleanup(src.Close)
	return src
}

// pollOne polls until a task comes (a poll may end empty before the
// published message is there to deliver).
func pollOne(t *testing.T, src *weftjs.Source) intake.Task {
	for {
		got, err := src.Poll(context.Background(), 1)
		require.NoError(t, err)
		if len(got) == 1 {
			return got[0]
		}
	}
}

func collect(t *testing.T, r *sdkmetric.ManualReader) map[string]metricdata.Metrics {
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

// sum returns the value of the counter name at the attributes attrs, and
// whether there is one.
func sum(got map[string]metricdata.Metrics, name string, attrs ...attribute.KeyValue) (int64, bool) {
	d, _ := got[name].Data.(metricdata.Sum[int64])
	for _, p := range d.DataPoints {
		if p.Attributes.Equals(ptr(attribute.NewSet(attrs...))) {
			return p.Value, true
		}
	}
	return 0, false
}

func ptr[T any](v T) *T { return &v }

// The source's figures move when a task is dead-lettered and when one is
// handed back; each instrument is in docs/metrics.md with its unit and
// type; after Unregister a collection reports nothing.
func TestSourceFiguresFollowDeadLettersAndHandBacks(t *testing.T) {
	ctx := context.Background()
	src := newSource(t)
	r := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(r))
	defer func() { require.NoError(t, mp.Shutdown(ctx)) }()
	reg, err := weftjsotel.InstrumentSource(mp, src, weftotel.WithName("orders"))
	require.NoError(t, err)
	orders := attribute.String("weft.jetstream.name", "orders")

	require.NoError(t, src.Publish(ctx, []byte("poison")))
	require.NoError(t, src.Publish(ctx, []byte("later")))
	require.NoError(t, pollOne(t, src).Terminate(ctx, "poison"))
	hb, ok := pollOne(t, src).(intake.HandBacker)
	require.True(t, ok)
	require.NoError(t, hb.HandBack(ctx))

	got := collect(t, r)
	for name, want := range map[string]int64{
		"weft.jetstream.task.dead_lettered": 1, "weft.jetstream.task.handed_back": 1,
		"weft.jetstream.poll.throttled": 0, "weft.jetstream.message.set_aside": 0,
	} {
		v, ok := sum(got, name, orders)
		assert.True(t, ok, name)
		assert.Equal(t, want, v, name)
	}
	docs, err := os.ReadFile("../../docs/metrics.md")
	require.NoError(t, err)
	rows := regexp.MustCompile("(?m)^\\| `(weft\\.jetstream\\.[a-z_.]+)` \\| `[a-z_]+` \\| `([^`]+)` \\| Counter \\|").FindAllStringSubmatch(string(docs), -1)
	assert.Len(t, rows, len(got), "docs/metrics.md lists every instrument, and no other")
	for _, row := range rows {
		assert.Equal(t, row[2], got[row[1]].Unit, row[1])
		assert.True(t, got[row[1]].Data.(metricdata.Sum[int64]).IsMonotonic, row[1])
	}

	require.NoError(t, reg.Unregister())
	for name := range got {
		_, ok := sum(collect(t, r), name, orders)
		assert.False(t, ok, "%s reported after Unregister", name)
	}
}

// A nil provider or source panics at the call, naming it.
func TestNilArgumentsPanicNamingThem(t *testing.T) {
	assert.PanicsWithValue(t, "weft/otel/jetstream: InstrumentSource: nil *weftjs.Source",
		func() { _, _ = weftjsotel.InstrumentSource(metricnoop.NewMeterProvider(), nil) })
	assert.PanicsWithValue(t, "weft/otel/jetstream: InstrumentSource: nil metric.MeterProvider (pass otel.GetMeterProvider() for the global one)",
		func() { _, _ = weftjsotel.InstrumentSource(nil, &weftjs.Source{}) })
}
