package report_test

import (
	"time"

	"github.com/weftrt/weft/bench/internal/noise"
	"github.com/weftrt/weft/bench/internal/result"
)

var (
	wallMetrics = []result.Metric{
		{Unit: "ns/op", Label: "wall", Better: result.Lower, Format: result.Nanos},
		{Unit: "cpu-ns/op", Label: "CPU", Better: result.Lower, Format: result.Nanos},
	}
	idleMetrics = []result.Metric{{Unit: "cpu-ns/s", Label: "CPU/s", Better: result.Lower, Format: result.Nanos}}
	rateMetrics = []result.Metric{{Unit: "tasks/s", Label: "tasks/s", Better: result.Higher, Format: result.Rate}}
	quiet       = noise.Load{Known: true, Window: time.Second, CPUs: 2}
	busy        = noise.Load{Known: true, Window: time.Second, CPUs: 2, Outside: 800 * time.Millisecond}
)

// res builds a result whose samples are wall values around median, with
// CPU at twice the wall time.
func res(suite, workload, contender string, role result.Role, workers int, metrics []result.Metric, median float64) result.Result {
	r := result.Result{
		Suite: suite, BenchName: map[string]string{"fork-join": "ForkJoin", "efficiency": "Efficiency", "admission": "Admission"}[suite],
		Workload: workload, Doc: workload + " doc", Contender: contender, ContenderDoc: contender + " doc", Role: role, Workers: workers,
		Metrics: metrics, Iters: 1, Load: quiet, Attempts: 1,
	}
	for _, f := range []float64{0.9, 1, 1.2} {
		s := make([]float64, len(metrics))
		for j := range s {
			s[j] = median * f * float64(j+1)
		}
		r.Samples = append(r.Samples, s)
	}
	return r
}

// scatter spreads the samples of one result to ±70% around the same
// median, far beyond result.MaxSpread.
func scatter(run *result.Run, workload, contender string, workers int) {
	for i := range run.Results {
		r := &run.Results[i]
		if r.Workload != workload || r.Contender != contender || r.Workers != workers {
			continue
		}
		m := r.Samples[1] // the median sample
		r.Samples = [][]float64{scaled(m, 0.2), m, scaled(m, 3)}
	}
}

func scaled(s []float64, f float64) []float64 {
	out := make([]float64, len(s))
	for i, v := range s {
		out[i] = v * f
	}
	return out
}

// fixture is a small run of every suite; goroutines ×2 on fib is noisy.
func fixture() *result.Run {
	run := &result.Run{
		Start:   time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
		Elapsed: 90 * time.Second,
		Machine: result.Machine{GOOS: "linux", GOARCH: "amd64", CPU: "Test CPU", CPUs: 2, GoVersion: "go1.26"},
		Settings: result.Settings{
			Suites: []string{"fork-join", "efficiency", "admission"}, Contenders: []string{"sequential", "weft", "goroutines"},
			Workers: []int{1, 2}, Reps: 3, Warmup: 1, MinTime: time.Second, NoiseThreshold: 0.1, Retries: 2,
			Sizes: map[string]string{"fib": "25"},
		},
		Results: []result.Result{
			res("fork-join", "fib", "sequential", result.Baseline, 1, wallMetrics, 100),
			res("fork-join", "fib", "weft", result.Weft, 1, wallMetrics, 110),
			res("fork-join", "fib", "weft", result.Weft, 2, wallMetrics, 55),
			res("fork-join", "fib", "goroutines", result.Alternative, 1, wallMetrics, 200),
			res("fork-join", "fib", "goroutines", result.Alternative, 2, wallMetrics, 120),
			res("efficiency", "idle", "sequential", result.Baseline, 1, idleMetrics, 1000),
			res("efficiency", "idle", "weft", result.Weft, 1, idleMetrics, 1100),
			res("admission", "tasks", "weft", result.Weft, 1, rateMetrics, 4e6),
			res("admission", "tasks", "goroutines", result.Alternative, 1, rateMetrics, 1e6),
		},
	}
	run.Results[4].Load, run.Results[4].Noisy, run.Results[4].Attempts = busy, true, 3
	return run
}
