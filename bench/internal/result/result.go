package result

import (
	"time"

	"github.com/weftrt/weft/bench/internal/noise"
	"github.com/weftrt/weft/bench/internal/stats"
)

// Better says which direction of a metric is an improvement.
type Better string

// The two directions, spelled as benchfmt's "better" unit metadata does.
const (
	Lower  Better = "lower"
	Higher Better = "higher"
)

// Format says how writers print a metric's values.
type Format int

// The formats.
const (
	Nanos Format = iota // a duration in nanoseconds: printed as ns, µs, ms or s
	Rate                // a count per second: printed with k, M or G
	Count               // a plain count, such as allocations
)

// Metric describes one figure a workload reports per repetition.
type Metric struct {
	Unit   string // benchfmt unit, such as "ns/op" or "cpu-ns/job"
	Label  string // a short column header, such as "wall" or "CPU/job"
	Better Better
	Format Format
}

// Role is a contender's part in the comparisons.
type Role string

// The roles.
const (
	Baseline    Role = "baseline"    // the reference without concurrency: ratios are against it
	Weft        Role = "weft"        // a form of weft
	Alternative Role = "alternative" // what a user might use instead of weft
)

// Result is the measurements of one case: a workload run by one contender
// with one number of workers.
type Result struct {
	Suite        string // such as "fork-join"
	BenchName    string // the suite's name in benchfmt, such as "ForkJoin"
	Workload     string
	Doc          string // the workload's, one line
	Contender    string
	ContenderDoc string // the contender's, one line, for the tables' legend
	Role         Role
	Workers      int
	Metrics      []Metric    // the first is the primary one, which ratios compare
	Iters        int         // operations each sample averages over (benchfmt's iteration count)
	Samples      [][]float64 // one per repetition, aligned with Metrics
	Load         noise.Load  // the machine outside this process over all repetitions
	Noisy        bool        // Load was above the run's threshold
	Attempts     int         // 1, or more where noisy attempts were measured again; the quietest is kept
}

// Values returns metric i's value in every sample.
func (r *Result) Values(i int) []float64 {
	v := make([]float64, len(r.Samples))
	for j, s := range r.Samples {
		v[j] = s[i]
	}
	return v
}

// Summary returns the summary of metric i.
func (r *Result) Summary(i int) stats.Summary { return stats.Summarize(r.Values(i)) }

// Median returns the median of the primary metric.
func (r *Result) Median() float64 { return r.Summary(0).Median }

// Spread returns the spread of the primary metric, the "±" of the table.
func (r *Result) Spread() float64 { return r.Summary(0).Spread() }

// Machine describes where a run ran.
type Machine struct {
	GOOS      string `json:"goos"`
	GOARCH    string `json:"goarch"`
	CPU       string `json:"cpu"`  // the model name, where the OS says
	CPUs      int    `json:"cpus"` // CPUs this process may use
	GoVersion string `json:"go"`
	// PGO names the profile the binary was built with (go build -pgo),
	// empty without: with one, Go inlines join.Call into a hot recursion
	// (docs/forks.md, Profile-guided builds).
	PGO string `json:"pgo,omitempty"`
}

// Settings are the choices a run was made with.
type Settings struct {
	Suites         []string          `json:"suites"`
	Contenders     []string          `json:"contenders"`
	Workers        []int             `json:"workers"`
	Reps           int               `json:"reps"`
	Warmup         int               `json:"warmup"`
	MinTime        time.Duration     `json:"min_time_ns"`
	NoiseThreshold float64           `json:"noise_threshold"`
	Retries        int               `json:"retries"`
	Sizes          map[string]string `json:"sizes"`
}

// Run is everything one invocation of the harness measured.
type Run struct {
	Start    time.Time
	Elapsed  time.Duration
	Machine  Machine
	Settings Settings
	Results  []Result
}

// NoisyCount returns how many results were taken on a busy machine.
func (run *Run) NoisyCount() int {
	n := 0
	for i := range run.Results {
		if run.Results[i].Noisy {
			n++
		}
	}
	return n
}
