package weftotel_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"regexp"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	otelprom "go.opentelemetry.io/otel/exporters/prometheus"
	"go.opentelemetry.io/otel/metric"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/weftrt/weft/intake"
	weftotel "github.com/weftrt/weft/otel"
	"github.com/weftrt/weft/scheduler"
	"github.com/weftrt/weft/slots"
)

// row is one line of the instrument tables in docs/metrics.md.
type row struct{ prom, unit, kind string }

// docRows reads the instrument tables of docs/metrics.md: rows whose
// first cell is a `weft.` name, other than the JetStream source's (which
// weftjsotel's tests hold to the page).
func docRows(t *testing.T) map[string]row {
	data, err := os.ReadFile("../docs/metrics.md")
	require.NoError(t, err)
	re := regexp.MustCompile("(?m)^\\| `(weft\\.[a-z_.]+)` \\| `([a-z_]+)` \\| `([^`]+)` \\| (Counter|UpDownCounter|Gauge) \\|")
	rows := map[string]row{}
	for _, m := range re.FindAllStringSubmatch(string(data), -1) {
		if !strings.HasPrefix(m[1], "weft.jetstream.") {
			rows[m[1]] = row{m[2], m[3], m[4]}
		}
	}
	return rows
}

// everything instruments one of each component, each in a state where it
// reports every figure (bounded slots, a resource-based supplier that
// has read, a source that counts its backlog).
func everything(t *testing.T, mp metric.MeterProvider) {
	p, err := scheduler.New(scheduler.WithWorkers(2), scheduler.WithSupplier(slots.NewFixed(4)))
	require.NoError(t, err)
	t.Cleanup(p.Close)
	q := intake.NewMemQueue(intake.MemQueueConfig{PollWait: time.Second})
	w, err := intake.New(intake.Config{Source: q, Supplier: slots.NewFixed(2), Handler: handle})
	require.NoError(t, err)
	t.Cleanup(w.Close)
	rb, err := slots.NewResourceBased(slots.ResourceOptions{TargetCPU: 0.8, TargetMemory: 0.8, MinSlots: 1, MaxSlots: 4,
		Sampler: &fakeSampler{u: slots.Usage{CPU: 0.1, Memory: 0.2}}})
	require.NoError(t, err)
	ps := slots.NewPauseable(rb)
	tr := slots.NewTracker(ps)
	perm, err := tr.Reserve(context.Background(), "read")
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, tr.Release(perm, slots.NeverUsed())) })

	for _, reg := range []func() (metric.Registration, error){
		func() (metric.Registration, error) { return weftotel.InstrumentPool(mp, p, weftotel.WithName("p")) },
		func() (metric.Registration, error) { return weftotel.InstrumentWorker(mp, w, weftotel.WithName("w")) },
		func() (metric.Registration, error) { return weftotel.InstrumentTracker(mp, tr, weftotel.WithName("t")) },
		func() (metric.Registration, error) {
			return weftotel.InstrumentSupplier(mp, ps, weftotel.WithName("s"))
		},
	} {
		r, err := reg()
		require.NoError(t, err)
		t.Cleanup(func() { require.NoError(t, r.Unregister()) })
	}
	q.Put([]byte("a"))
	time.Sleep(time.Minute) // in the bubble: the worker polls, runs, acks
	synctest.Wait()
}

// Every instrument is in docs/metrics.md with its Prometheus name, unit
// and type, and every row there is an instrument; the Prometheus names
// are those a /metrics page served on 127.0.0.1 shows.
func TestDocsListEveryInstrument(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		registry := prometheus.NewRegistry()
		exporter, err := otelprom.New(otelprom.WithRegisterer(registry), otelprom.WithoutScopeInfo(), otelprom.WithoutTargetInfo())
		require.NoError(t, err)
		manual := sdkmetric.NewManualReader()
		mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(manual), sdkmetric.WithReader(exporter))
		defer func() { require.NoError(t, mp.Shutdown(context.Background())) }()
		everything(t, mp)
		got := collect(t, manual)
		page := servePage(t, registry)

		rows := docRows(t)
		for name, m := range got {
			r, ok := rows[name]
			if !assert.True(t, ok, "%s is not in docs/metrics.md:\n%s", name, rowFor(m)) {
				continue
			}
			assert.Equal(t, r.unit, m.Unit, name)
			assert.Equal(t, r.kind, kind(m), name)
			assert.NotEmpty(t, points(m), "%s has no point", name)
			assert.Contains(t, page, "# TYPE "+r.prom+" ", "%s: no %s on the page", name, r.prom)
		}
		for name := range rows {
			assert.Contains(t, got, name, "docs/metrics.md lists %s, which no component reports", name)
		}
	})
}

// servePage serves registry's page on 127.0.0.1 and returns one scrape
// of it, and closes the server.
func servePage(t *testing.T, registry *prometheus.Registry) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	srv := &http.Server{Handler: promhttp.HandlerFor(registry, promhttp.HandlerOpts{})}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	page, err := scrape("http://" + ln.Addr().String() + "/metrics")
	require.NoError(t, err)
	require.NoError(t, srv.Close())
	require.ErrorIs(t, <-served, http.ErrServerClosed)
	return page
}

// rowFor is the docs row to add for m, less its Prometheus name.
func rowFor(m metricdata.Metrics) string {
	return fmt.Sprintf("| `%s` | `?` | `%s` | %s | %s |", m.Name, m.Unit, kind(m), m.Description)
}
