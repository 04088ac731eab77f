package runner

import (
	"context"
	"fmt"
	"runtime"
	"time"

	"github.com/weftrt/weft/bench/internal/noise"
	"github.com/weftrt/weft/bench/internal/result"
)

// Case is one measurement to make: a workload run by one contender with
// one number of workers.
type Case struct {
	Suite        string
	BenchName    string
	Workload     string
	Doc          string // the workload's, one line
	Contender    string
	ContenderDoc string // the contender's, one line
	Role         result.Role
	Workers      int
	Metrics      []result.Metric
	Iters        int  // operations per repetition; 1 if a repetition is one operation
	Shared       bool // may run interleaved with the workload's other shared cases
	// Start prepares a trial. The runner calls it, and every repetition,
	// with GOMAXPROCS set to Workers, so that goroutine-based contenders
	// get as many CPUs as a pool gets workers.
	Start func() (Trial, error)
}

// Name returns "suite/workload/contender ×workers" for messages.
func (c *Case) Name() string {
	return fmt.Sprintf("%s/%s/%s ×%d", c.Suite, c.Workload, c.Contender, c.Workers)
}

// Trial is a started case.
type Trial interface {
	// Run makes one repetition and returns its values, aligned with the
	// case's Metrics. It checks what the workload computed and returns an
	// error if it is wrong.
	Run() ([]float64, error)
	Close()
}

// Options control how cases are measured.
type Options struct {
	Reps           int           // rounds, each with at least one repetition of every case
	Warmup         int           // unrecorded repetitions of each case first
	MinTime        time.Duration // measured time each case gets at least, spread over the rounds
	MaxReps        int           // repetitions per case at most; 0 means 1000
	NoiseThreshold float64       // the share of CPUs busy elsewhere above which a result is noisy
	Retries        int           // times to measure a noisy bout again, keeping the quietest attempt
	Probe          Probe         // nil: no noise detection
	Progress       *Progress     // nil: silent

	clock clock // zero: the real one
}

// Probe watches the machine outside this process; *noise.Probe is the
// real one.
type Probe interface {
	Read() noise.Reading
	Since(before noise.Reading) noise.Load
}

// Run measures every case and returns the results in the cases' order.
// It stops at the first error, which names the case: a wrong result is a
// bug to fix, not a figure to print.
func Run(ctx context.Context, cases []Case, o Options) ([]result.Result, error) {
	if o.MaxReps <= 0 {
		o.MaxReps = 1000
	}
	o.Reps = max(o.Reps, 1)
	if o.clock.now == nil {
		o.clock = realClock
	}
	bs := bouts(cases)
	o.Progress.begin(bs, o)
	results := make([]result.Result, 0, len(cases))
	for _, b := range bs {
		rs, err := runBout(ctx, b, o)
		if err != nil {
			return results, err
		}
		results = append(results, rs...)
	}
	o.Progress.end(len(cases))
	return results, nil
}

// bouts groups consecutive shared cases of the same workload; every other
// case is a bout of its own.
func bouts(cases []Case) [][]Case {
	var bs [][]Case
	for i, c := range cases {
		n := len(bs)
		if n > 0 && c.Shared && cases[i-1].Shared && cases[i-1].Suite == c.Suite && cases[i-1].Workload == c.Workload {
			bs[n-1] = append(bs[n-1], c)
			continue
		}
		bs = append(bs, []Case{c})
	}
	return bs
}

// runBout measures a bout, again while it is noisy and retries are left,
// and returns the quietest attempt.
func runBout(ctx context.Context, bout []Case, o Options) ([]result.Result, error) {
	var best []result.Result
	for attempt := 1; ; attempt++ {
		rs, err := attemptBout(ctx, bout, attempt, o)
		if err != nil {
			return nil, err
		}
		if best == nil || rs[0].Load.Fraction() < best[0].Load.Fraction() {
			best = rs
		}
		for i := range best {
			best[i].Attempts = attempt
		}
		if !best[0].Noisy || attempt > o.Retries {
			return best, nil
		}
	}
}

func attemptBout(ctx context.Context, bout []Case, attempt int, o Options) ([]result.Result, error) {
	o.Progress.boutStart(bout, attempt)
	trials, err := startAll(bout, o)
	defer closeAll(trials)
	if err != nil {
		return nil, err
	}
	runtime.GC() // the previous bout's garbage is not this one's to collect
	var before noise.Reading
	if o.Probe != nil {
		before = o.Probe.Read()
	}
	samples, err := rounds(ctx, bout, trials, o)
	if err != nil {
		return nil, err
	}
	var load noise.Load
	if o.Probe != nil {
		load = o.Probe.Since(before)
	}
	return results(bout, samples, load, o), nil
}

// startAll starts and warms up every case of a bout, and returns the
// trials started so far if one fails.
func startAll(bout []Case, o Options) ([]Trial, error) {
	trials := make([]Trial, 0, len(bout))
	for i := range bout {
		t, err := start(&bout[i], o)
		if err != nil {
			return trials, fmt.Errorf("%s: %w", bout[i].Name(), err)
		}
		trials = append(trials, t)
	}
	return trials, nil
}

func closeAll(trials []Trial) {
	for _, t := range trials {
		t.Close()
	}
}

// start starts a case's trial and warms it up.
func start(c *Case, o Options) (Trial, error) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(c.Workers))
	t, err := c.Start()
	if err != nil {
		return nil, err
	}
	for i := range o.Warmup {
		o.Progress.run(c, "warm-up", i+1, o.Warmup)
		if _, err := t.Run(); err != nil {
			t.Close()
			return nil, err
		}
	}
	return t, nil
}

// rounds runs the measured rounds. In each, every case repeats for at
// least MinTime/Reps, so that a fast case does many repetitions per round
// and a slow one a single one.
func rounds(ctx context.Context, bout []Case, trials []Trial, o Options) ([][][]float64, error) {
	samples := make([][][]float64, len(bout))
	slice := o.MinTime / time.Duration(o.Reps)
	perRound := max(o.MaxReps/o.Reps, 1)
	for r := range o.Reps {
		for i := range bout {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			o.Progress.run(&bout[i], "round", r+1, o.Reps)
			s, err := slot(&bout[i], trials[i], slice, perRound, o.clock)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", bout[i].Name(), err)
			}
			samples[i] = append(samples[i], s...)
		}
		o.Progress.round(bout, r+1)
	}
	return samples, nil
}

// slot runs one case's share of a round: repetitions until it has taken
// slice, at least one and at most n.
func slot(c *Case, t Trial, slice time.Duration, n int, clk clock) ([][]float64, error) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(c.Workers))
	var samples [][]float64
	begin := clk.now()
	for len(samples) == 0 || (len(samples) < n && clk.now().Sub(begin) < slice) {
		v, err := t.Run()
		if err != nil {
			return nil, err
		}
		samples = append(samples, v)
	}
	return samples, nil
}

func results(bout []Case, samples [][][]float64, load noise.Load, o Options) []result.Result {
	rs := make([]result.Result, len(bout))
	for i := range bout {
		c := &bout[i]
		rs[i] = result.Result{
			Suite: c.Suite, BenchName: c.BenchName, Workload: c.Workload, Doc: c.Doc,
			Contender: c.Contender, ContenderDoc: c.ContenderDoc, Role: c.Role, Workers: c.Workers,
			Metrics: c.Metrics, Iters: max(c.Iters, 1), Samples: samples[i],
			Load: load, Noisy: load.Noisy(o.NoiseThreshold),
		}
	}
	return rs
}
