package report

import (
	"encoding/json"
	"io"
	"math"
	"time"

	"github.com/weftrt/weft/bench/internal/result"
)

// Schema names the JSON summary's layout; it changes when a field changes
// meaning or goes away, not when one is added.
const Schema = "weftbench/v1"

// Summary is the JSON summary of a run: what scripts read. Every field is
// always present; a ratio with nothing to compare with is null.
type Summary struct {
	Schema       string          `json:"schema"`
	Start        time.Time       `json:"start"`
	ElapsedS     float64         `json:"elapsed_s"`
	Machine      result.Machine  `json:"machine"`
	Settings     result.Settings `json:"settings"`
	NoisyResults int             `json:"noisy_results"`
	Results      []Entry         `json:"results"`
}

// Entry is one result.
type Entry struct {
	Suite        string        `json:"suite"`
	Workload     string        `json:"workload"`
	Doc          string        `json:"doc"`
	Contender    string        `json:"contender"`
	ContenderDoc string        `json:"contender_doc"` // what the contender is, in one line
	Role         result.Role   `json:"role"`
	Workers      int           `json:"workers"`
	Reps         int           `json:"reps"`
	Attempts     int           `json:"attempts"` // above 1 where noisy attempts were measured again
	Iters        int           `json:"iters"`
	Metrics      []MetricStats `json:"metrics"` // the first is the one ratios compare
	// VsBaseline and VsBestAlt are factors of improvement of the first
	// metric's median: above 1 is better. Trusted is false when this
	// result or one it was compared with was noisy.
	VsBaseline *float64 `json:"vs_baseline"`
	VsBestAlt  *float64 `json:"vs_best_alt"`
	BestAlt    string   `json:"best_alt"`
	Trusted    bool     `json:"trusted"`
	// OutsideCPUs is how many CPUs were busy outside this process, on
	// average, while the repetitions ran; NoiseKnown is false where the
	// harness could not tell.
	OutsideCPUs float64 `json:"outside_cpus"`
	NoiseKnown  bool    `json:"noise_known"`
	Noisy       bool    `json:"noisy"`
}

// MetricStats summarizes one metric over the repetitions.
type MetricStats struct {
	Unit   string        `json:"unit"`
	Label  string        `json:"label"`
	Better result.Better `json:"better"`
	Median float64       `json:"median"`
	Min    float64       `json:"min"`
	Max    float64       `json:"max"`
	Q1     float64       `json:"q1"`
	Q3     float64       `json:"q3"`
}

// WriteJSON writes the run's summary as indented JSON.
func WriteJSON(w io.Writer, run *result.Run) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(NewSummary(run))
}

// NewSummary returns the run's summary.
func NewSummary(run *result.Run) Summary {
	s := Summary{
		Schema: Schema, Start: run.Start, ElapsedS: run.Elapsed.Seconds(),
		Machine: run.Machine, Settings: run.Settings, NoisyResults: run.NoisyCount(),
		Results: make([]Entry, len(run.Results)),
	}
	for i := range run.Results {
		s.Results[i] = entry(run, i)
	}
	return s
}

func entry(run *result.Run, i int) Entry {
	r := &run.Results[i]
	c := run.Compare(i)
	e := Entry{
		Suite: r.Suite, Workload: r.Workload, Doc: r.Doc, Contender: r.Contender, ContenderDoc: r.ContenderDoc, Role: r.Role,
		Workers: r.Workers, Reps: len(r.Samples), Attempts: r.Attempts, Iters: r.Iters,
		VsBaseline: nonZero(c.VsBaseline), VsBestAlt: nonZero(c.VsBestAlt), BestAlt: c.BestAlt, Trusted: c.Trusted,
		OutsideCPUs: r.Load.Cores(), NoiseKnown: r.Load.Known, Noisy: r.Noisy,
	}
	for j, m := range r.Metrics {
		st := r.Summary(j)
		e.Metrics = append(e.Metrics, MetricStats{
			Unit: m.Unit, Label: m.Label, Better: m.Better,
			Median: st.Median, Min: st.Min, Max: st.Max, Q1: st.Q1, Q3: st.Q3,
		})
	}
	return e
}

// nonZero returns nil for a ratio with nothing behind it (0) or one JSON
// cannot carry (NaN, ±Inf).
func nonZero(x float64) *float64 {
	if x == 0 || math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	return &x
}
