package report

import (
	"fmt"
	"io"

	"golang.org/x/perf/benchfmt"
	"golang.org/x/perf/benchunit"

	"github.com/weftrt/weft/bench/internal/result"
)

// WriteBenchfmt writes every repetition of every result in the Go
// benchmark format, so that benchstat compares two runs:
//
//	benchstat old/results.txt new/results.txt
//
// or the contenders of one run:
//
//	benchstat -col /contender results.txt
//
// A result's name is its suite's BenchName with workload= and contender=
// keys, and the worker count as the GOMAXPROCS suffix, as go test writes
// it: ForkJoin/workload=tree/contender=weft-2.
func WriteBenchfmt(w io.Writer, run *result.Run) error {
	bw := benchfmt.NewWriter(w)
	if err := writeUnits(bw, run); err != nil {
		return err
	}
	config := fileConfig(run)
	for i := range run.Results {
		r := &run.Results[i]
		name := fmt.Sprintf("%s/workload=%s/contender=%s-%d", r.BenchName, r.Workload, r.Contender, r.Workers)
		for _, s := range r.Samples {
			rec := &benchfmt.Result{Config: config, Name: benchfmt.Name(name), Iters: r.Iters}
			for j, m := range r.Metrics {
				rec.Values = append(rec.Values, benchfmt.Value{Value: s[j], Unit: m.Unit})
			}
			if err := bw.Write(rec); err != nil {
				return err
			}
		}
	}
	return nil
}

// fileConfig is the header every result carries: go test's keys, and the
// run's noise figures so that a reader of the file alone can tell a
// quiet run from a busy one.
func fileConfig(run *result.Run) []benchfmt.Config {
	kv := [][2]string{
		{"goos", run.Machine.GOOS},
		{"goarch", run.Machine.GOARCH},
		{"cpu", run.Machine.CPU},
		{"go", run.Machine.GoVersion},
		{"weftbench-date", run.Start.UTC().Format("2006-01-02T15:04:05Z")},
		{"weftbench-noise-threshold", fmt.Sprintf("%g of the CPUs busy elsewhere", run.Settings.NoiseThreshold)},
		{"weftbench-noisy-results", fmt.Sprintf("%d of %d", run.NoisyCount(), len(run.Results))},
	}
	if run.Machine.PGO != "" {
		kv = append(kv, [2]string{"weftbench-pgo", run.Machine.PGO})
	}
	config := make([]benchfmt.Config, len(kv))
	for i, c := range kv {
		config[i] = benchfmt.Config{Key: c[0], Value: []byte(c[1]), File: true}
	}
	return config
}

// writeUnits tells benchstat which units grow better upward, which it
// cannot guess from a name like tasks/s.
func writeUnits(bw *benchfmt.Writer, run *result.Run) error {
	seen := map[string]bool{}
	for _, r := range run.Results {
		for _, m := range r.Metrics {
			if seen[m.Unit] {
				continue
			}
			seen[m.Unit] = true
			if err := writeUnit(bw, m); err != nil {
				return err
			}
		}
	}
	return nil
}

func writeUnit(bw *benchfmt.Writer, m result.Metric) error {
	_, tidy := benchunit.Tidy(1, m.Unit)
	if m.Better != result.Higher {
		return nil // benchstat's default
	}
	return bw.Write(&benchfmt.UnitMetadata{
		UnitMetadataKey: benchfmt.UnitMetadataKey{Unit: tidy, Key: "better"},
		OrigUnit:        m.Unit,
		Value:           "higher",
	})
}
