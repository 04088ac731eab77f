package weftotel_test

import (
	"context"
	"testing"
	"time"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/weftrt/weft/internal/work"
	weftotel "github.com/weftrt/weft/otel"
	"github.com/weftrt/weft/scheduler"
)

// collectEvery is how often the benchmark's reader collects: far more
// often than a scrape (Prometheus scrapes every 15s by default), so that a
// cost of collecting would show.
const collectEvery = 10 * time.Millisecond

// BenchmarkFib runs fib-full (a join.Call at every node) and cutoff fib
// (joins above n=20) on a two-worker pool in three setups: bare; with a
// reader collecting every 10ms from a meter provider with nothing
// registered (collector: what a goroutine that wakes every 10ms costs a
// pool on a machine whose cores the workers fill); and with the pool's
// instruments registered on that reader (instrumented). Instrumented
// against collector is the instruments' cost; collector against bare is
// the collecting goroutine's, which a real scrape, every 15 s or more,
// makes 1,500 times smaller. benchstat compares the columns:
//
//	go test -c -o /tmp/otel.test
//	for i in $(seq 10); do /tmp/otel.test -test.run='^$' -test.bench=Fib -test.benchtime=0.5s; done > /tmp/fib.txt
//	benchstat -col /pool /tmp/fib.txt
//
// (a loop of single runs, so that the two columns interleave and share
// the machine's noise).
func BenchmarkFib(b *testing.B) {
	for _, fib := range []struct {
		name string
		run  func(w *scheduler.Worker) int
		want int
	}{
		{"fib=full", func(w *scheduler.Worker) int { return work.FibValues(w, 25) }, 75025},
		{"fib=cutoff", func(w *scheduler.Worker) int { return work.FibCutoffValues(w, 32, 20) }, 2178309},
	} {
		for _, setup := range []string{"bare", "collector", "instrumented"} {
			b.Run(fib.name+"/pool="+setup, func(b *testing.B) {
				p, err := scheduler.New(scheduler.WithWorkers(2))
				if err != nil {
					b.Fatal(err)
				}
				defer p.Close()
				if setup != "bare" {
					stop := collecting(b, p, setup == "instrumented")
					defer stop()
				}
				for b.Loop() {
					var got int
					if err := p.Run(context.Background(), func(w *scheduler.Worker) error { got = fib.run(w); return nil }); err != nil {
						b.Fatal(err)
					}
					if got != fib.want {
						b.Fatalf("fib = %d, want %d", got, fib.want)
					}
				}
			})
		}
	}
}

// collecting collects every collectEvery until the returned function is
// called, which reports the collections made; with instrument, p's
// instruments are registered on the reader's meter provider.
func collecting(b *testing.B, p *scheduler.Pool, instrument bool) (stop func()) {
	r := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(r))
	unregister := func() error { return nil }
	if instrument {
		reg, err := weftotel.InstrumentPool(mp, p)
		if err != nil {
			b.Fatal(err)
		}
		unregister = reg.Unregister
	}
	done, finished := make(chan struct{}), make(chan int)
	go func() {
		tick := time.NewTicker(collectEvery)
		defer tick.Stop()
		var rm metricdata.ResourceMetrics
		n := 0
		for {
			select {
			case <-done:
				finished <- n
				return
			case <-tick.C:
				if err := r.Collect(context.Background(), &rm); err != nil {
					b.Error(err)
				}
				n++
			}
		}
	}()
	return func() {
		close(done)
		n := <-finished
		b.ReportMetric(float64(n)/float64(b.N), "collections/op")
		_ = unregister()
		_ = mp.Shutdown(context.Background())
	}
}

// BenchmarkCollect is what one collection of a pool's instruments costs
// the collecting goroutine: divided by the scrape interval, the share of
// one core that watching a pool takes.
func BenchmarkCollect(b *testing.B) {
	p, err := scheduler.New(scheduler.WithWorkers(2))
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	r := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(r))
	defer func() { _ = mp.Shutdown(context.Background()) }()
	reg, err := weftotel.InstrumentPool(mp, p)
	if err != nil {
		b.Fatal(err)
	}
	defer func() { _ = reg.Unregister() }()
	var rm metricdata.ResourceMetrics
	for b.Loop() {
		if err := r.Collect(context.Background(), &rm); err != nil {
			b.Fatal(err)
		}
	}
}
