package weftotel_test

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	otelprom "go.opentelemetry.io/otel/exporters/prometheus"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"

	weftotel "github.com/weftrt/weft/otel"
	"github.com/weftrt/weft/scheduler"
)

// A pool's figures served at /metrics in Prometheus's text format,
// through OpenTelemetry's Prometheus exporter: a scrape is a collection,
// which reads the pool's Stats once.
func Example_prometheus() {
	// The exporter is a reader: each scrape of reg collects from mp.
	reg := prometheus.NewRegistry()
	exporter, err := otelprom.New(otelprom.WithRegisterer(reg), otelprom.WithoutScopeInfo(), otelprom.WithoutTargetInfo())
	if err != nil {
		panic(err)
	}
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(exporter))
	defer mp.Shutdown(context.Background())

	pool, err := scheduler.New(scheduler.WithWorkers(2))
	if err != nil {
		panic(err)
	}
	defer pool.Close()
	registration, err := weftotel.InstrumentPool(mp, pool, weftotel.WithName("render"))
	if err != nil {
		panic(err)
	}
	defer registration.Unregister()

	// Serve /metrics (a service would use its own mux and address).
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	srv := &http.Server{Handler: mux}
	go srv.Serve(ln)
	defer srv.Close()

	for range 3 {
		_ = pool.Run(context.Background(), func(*scheduler.Worker) error { return nil })
	}
	page, err := scrape("http://" + ln.Addr().String() + "/metrics")
	if err != nil {
		panic(err)
	}
	for line := range strings.Lines(page) {
		if strings.HasPrefix(line, "weft_pool_job_injected") || strings.HasPrefix(line, "weft_pool_slot_issued") {
			fmt.Print(line)
		}
	}
	// Output:
	// weft_pool_job_injected_total{weft_pool_name="render"} 3
	// weft_pool_slot_issued_total{weft_pool_name="render"} 3
}

// scrape returns the page at url, on a connection closed afterwards (so
// that no idle connection outlives the test).
func scrape(url string) (string, error) {
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := client.Get(url)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	var b strings.Builder
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		b.WriteString(sc.Text() + "\n")
	}
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("%s: %s", url, resp.Status)
	}
	return b.String(), sc.Err()
}
