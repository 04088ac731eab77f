package suite

import (
	"fmt"
	"slices"

	"github.com/weftrt/weft/bench/internal/contender"
	"github.com/weftrt/weft/bench/internal/result"
	"github.com/weftrt/weft/bench/internal/runner"
)

// Suite is a named group of workloads.
type Suite struct {
	Name      string // for -suites, such as "fork-join"
	BenchName string // in benchfmt names, such as "ForkJoin"
	Doc       string
	workloads func(Sizes) []*workload
}

// Config is what planning needs besides the suite.
type Config struct {
	Sizes      Sizes
	Contenders []contender.Contender
	Workers    []int // the sweep; baselines run with 1 whatever it says
}

// workload is one thing a suite measures.
type workload struct {
	name     string
	doc      string // one line, printed under the workload's table
	metrics  []result.Metric
	iters    int  // operations per repetition
	shared   bool // its cases may run interleaved (runner.Case.Shared)
	supports func(contender.Contender) bool
	// baselineAtEveryCount measures the baseline at every worker count,
	// for workloads whose baseline cost depends on GOMAXPROCS.
	baselineAtEveryCount bool
	// start returns the function that makes one repetition on inst.
	start func(c contender.Contender, inst contender.Instance) (func() ([]float64, error), error)
}

// All returns the suites in the order they run.
func All() []Suite {
	return []Suite{forkJoin, treeSum, loops, efficiency, admission}
}

// Names returns the suites' names.
func Names(ss []Suite) []string {
	names := make([]string, len(ss))
	for i, s := range ss {
		names[i] = s.Name
	}
	return names
}

// Lookup returns the named suites in their running order.
func Lookup(names []string) ([]Suite, error) {
	all := All()
	for _, n := range names {
		if !slices.ContainsFunc(all, func(s Suite) bool { return s.Name == n }) {
			return nil, fmt.Errorf("unknown suite %q (known: %v)", n, Names(all))
		}
	}
	return slices.DeleteFunc(all, func(s Suite) bool { return !slices.Contains(names, s.Name) }), nil
}

// Cases plans s: for each workload, each contender that can run it, and
// each worker count, one case; a baseline once, with one worker, unless the
// workload wants it at every worker count.
func (s Suite) Cases(cfg Config) []runner.Case {
	var cases []runner.Case
	for _, w := range s.workloads(cfg.Sizes) {
		for _, c := range cfg.Contenders {
			if !w.supports(c) {
				continue
			}
			workers := cfg.Workers
			if c.Role == result.Baseline && !w.baselineAtEveryCount {
				workers = []int{1}
			}
			for _, n := range workers {
				cases = append(cases, s.plan(w, c, n))
			}
		}
	}
	return cases
}

func (s Suite) plan(w *workload, c contender.Contender, workers int) runner.Case {
	return runner.Case{
		Suite: s.Name, BenchName: s.BenchName, Workload: w.name, Doc: w.doc,
		Contender: c.Name, ContenderDoc: c.Doc, Role: c.Role, Workers: workers,
		Metrics: w.metrics, Iters: w.iters, Shared: w.shared,
		Start: func() (runner.Trial, error) {
			inst, err := c.Start(workers)
			if err != nil {
				return nil, err
			}
			run, err := w.start(c, inst)
			if err != nil {
				inst.Close()
				return nil, err
			}
			return trial{run, inst}, nil
		},
	}
}

// trial closes the contender's instance after the last repetition.
type trial struct {
	run  func() ([]float64, error)
	inst contender.Instance
}

func (t trial) Run() ([]float64, error) { return t.run() }
func (t trial) Close()                  { t.inst.Close() }

// capability returns inst as the interface capability T, or an error that
// says the contender claimed a capability its instance lacks.
func capability[T any](c contender.Contender, inst contender.Instance) (T, error) {
	v, ok := inst.(T)
	if !ok {
		return v, fmt.Errorf("contender %s: instance %T is not a %T", c.Name, inst, (*T)(nil))
	}
	return v, nil
}

// nanos converts a duration to float nanoseconds, the unit of every time
// metric.
func nanos[D ~int64](d D) float64 { return float64(d) }
