package weftjsotel_test

import (
	"context"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"strings"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	otelprom "go.opentelemetry.io/otel/exporters/prometheus"
	"go.opentelemetry.io/otel/metric"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"

	"github.com/weftrt/weft/intake"
	weftjs "github.com/weftrt/weft/jetstream"
	"github.com/weftrt/weft/jetstream/natstest"
	weftotel "github.com/weftrt/weft/otel"
	weftjsotel "github.com/weftrt/weft/otel/jetstream"
	"github.com/weftrt/weft/slots"
)

// A worker on a JetStream work queue, its figures and its source's served
// at /metrics in Prometheus's text format. A poison task goes to the
// dead-letter stream, and the page says so.
func Example() {
	ctx := context.Background()
	srv, err := natstest.Start(ctx, natstest.Options{}) // for tests and trying out, not production
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Shutdown(ctx)
	nc, err := weftjs.Connect(srv.URL())
	if err != nil {
		log.Fatal(err)
	}
	defer nc.Close()
	js, _ := jetstream.New(nc)
	src, err := weftjs.NewSource(ctx, js, weftjs.Config{Stream: "TASKS"})
	if err != nil {
		log.Fatal(err)
	}
	defer src.Close()

	// OpenTelemetry, read by the Prometheus exporter at each scrape.
	registry := prometheus.NewRegistry()
	exporter, err := otelprom.New(otelprom.WithRegisterer(registry), otelprom.WithoutScopeInfo(), otelprom.WithoutTargetInfo())
	if err != nil {
		log.Fatal(err)
	}
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(exporter))
	defer mp.Shutdown(ctx)

	done := make(chan struct{})
	w, err := intake.New(intake.Config{
		Source:   src,
		Supplier: slots.NewFixed(4),
		Handler: func(ctx context.Context, t intake.Task) error {
			defer func() { done <- struct{}{} }()
			if string(t.Payload()) == "poison" {
				return intake.Poison(fmt.Errorf("cannot run %q", t.Payload()))
			}
			return nil
		},
	})
	if err != nil {
		log.Fatal(err)
	}
	for _, reg := range []func() (metric.Registration, error){
		func() (metric.Registration, error) {
			return weftotel.InstrumentWorker(mp, w, weftotel.WithName("orders"))
		},
		func() (metric.Registration, error) {
			return weftjsotel.InstrumentSource(mp, src, weftotel.WithName("orders"))
		},
	} {
		r, err := reg()
		if err != nil {
			log.Fatal(err)
		}
		defer r.Unregister()
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(registry, promhttp.HandlerOpts{}))
	server := &http.Server{Handler: mux}
	go server.Serve(ln)
	defer server.Close()

	for _, p := range []string{"a", "b", "poison"} {
		if err := src.Publish(ctx, []byte(p)); err != nil {
			log.Fatal(err)
		}
	}
	for range 3 {
		<-done
	}
	if err := w.Shutdown(ctx); err != nil { // the acks and the +TERM are settled
		log.Fatal(err)
	}

	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := client.Get("http://" + ln.Addr().String() + "/metrics")
	if err != nil {
		log.Fatal(err)
	}
	defer resp.Body.Close()
	page, _ := io.ReadAll(resp.Body)
	for line := range strings.Lines(string(page)) {
		for _, name := range []string{"weft_intake_task_acked_total", "weft_intake_task_terminated_total", "weft_jetstream_task_dead_lettered_total"} {
			if strings.HasPrefix(line, name+"{") {
				fmt.Print(line)
			}
		}
	}
	// Output:
	// weft_intake_task_acked_total{weft_intake_name="orders"} 2
	// weft_intake_task_terminated_total{weft_intake_name="orders"} 1
	// weft_jetstream_task_dead_lettered_total{weft_jetstream_name="orders"} 1
}
