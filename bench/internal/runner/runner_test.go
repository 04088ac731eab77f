package runner_test

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/weftrt/weft/bench/internal/noise"
	"github.com/weftrt/weft/bench/internal/result"
	"github.com/weftrt/weft/bench/internal/runner"
	"github.com/weftrt/weft/internal/work"
)

// fakeClock is a wall clock and a CPU clock that move only when told to,
// so that tests can assert on exact durations however busy the machine is.
type fakeClock struct {
	wall time.Time
	cpu  time.Duration
	read time.Duration // what reading either clock costs both, after the reading
}

func (c *fakeClock) spend(wall, cpu time.Duration) {
	c.wall = c.wall.Add(wall)
	c.cpu += cpu
}

func (c *fakeClock) now() time.Time {
	t := c.wall
	c.spend(c.read, c.read)
	return t
}

func (c *fakeClock) cpuTime() time.Duration {
	d := c.cpu
	c.spend(c.read, c.read)
	return d
}

// counting is a trial that returns 1, 2, 3, ... and records what the
// runner did to it.
type counting struct {
	runs   int
	procs  []int // GOMAXPROCS during each run
	closed bool
	failAt int        // return an error on this run (1-based); 0: never
	clock  *fakeClock // advanced by cost on every run; nil: none
	cost   time.Duration
}

func (c *counting) Run() ([]float64, error) {
	c.runs++
	c.procs = append(c.procs, runtime.GOMAXPROCS(0))
	if c.runs == c.failAt {
		return nil, errors.New("wrong result")
	}
	if c.clock != nil {
		c.clock.spend(c.cost, c.cost)
	}
	return []float64{float64(c.runs)}, nil
}

func (c *counting) Close() { c.closed = true }

func testCase(tr *counting, workers int) runner.Case {
	return runner.Case{
		Suite: "s", Workload: "w", Contender: "c", ContenderDoc: "c doc", Workers: workers,
		Metrics: []result.Metric{{Unit: "ns/op", Label: "wall", Better: result.Lower}},
		Start:   func() (runner.Trial, error) { return tr, nil },
	}
}

func TestWarmupThenReps(t *testing.T) {
	tr := &counting{}
	before := runtime.GOMAXPROCS(0)
	workers := before + 1 // not what GOMAXPROCS already is, on any machine
	rs, err := runner.Run(context.Background(), []runner.Case{testCase(tr, workers)}, runner.Options{Reps: 3, Warmup: 2})
	require.NoError(t, err)
	require.Len(t, rs, 1)
	assert.Equal(t, [][]float64{{3}, {4}, {5}}, rs[0].Samples, "warm-up runs are not recorded")
	assert.Equal(t, []int{workers, workers, workers, workers, workers}, tr.procs, "GOMAXPROCS is the worker count while the case runs")
	assert.Equal(t, before, runtime.GOMAXPROCS(0), "and restored after")
	assert.True(t, tr.closed)
	assert.Equal(t, 1, rs[0].Attempts)
	assert.Equal(t, "c doc", rs[0].ContenderDoc, "the legend's line travels with the result")
	assert.False(t, rs[0].Load.Known, "no probe, no noise figure")
}

func TestMinTimeAddsReps(t *testing.T) {
	const ms = time.Millisecond
	for _, tc := range []struct {
		name    string
		cost    time.Duration // of one run
		minTime time.Duration // over 2 rounds
		maxReps int
		want    int // runs in all
	}{
		{"runs fill each round's slice", 5 * ms, 40 * ms, 100, 8},
		{"the last run of a round may overshoot", 7 * ms, 40 * ms, 100, 6},
		{"a slow case runs once a round", 30 * ms, 40 * ms, 100, 2},
		{"no MinTime: once a round", 5 * ms, 0, 100, 2},
		{"MaxReps caps MinTime", 5 * ms, time.Hour, 4, 4},
		{"but every round runs once", 5 * ms, time.Hour, 1, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clk := &fakeClock{}
			tr := &counting{clock: clk, cost: tc.cost}
			o := runner.WithClock(runner.Options{Reps: 2, MinTime: tc.minTime, MaxReps: tc.maxReps}, clk.now)
			rs, err := runner.Run(context.Background(), []runner.Case{testCase(tr, 1)}, o)
			require.NoError(t, err)
			assert.Equal(t, tc.want, tr.runs)
			assert.Len(t, rs[0].Samples, tc.want, "every run is recorded")
		})
	}
}

func TestErrorNamesTheCase(t *testing.T) {
	tr := &counting{failAt: 2}
	_, err := runner.Run(context.Background(), []runner.Case{testCase(tr, 2)}, runner.Options{Reps: 3, Warmup: 1})
	require.Error(t, err)
	assert.Equal(t, "s/w/c ×2: wrong result", err.Error())
	assert.True(t, tr.closed)
}

func TestCanceledRunStops(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	rs, err := runner.Run(ctx, []runner.Case{testCase(&counting{}, 1)}, runner.Options{Reps: 1})
	assert.ErrorIs(t, err, context.Canceled)
	assert.Empty(t, rs)
}

// scripted is a probe that reports the given loads in turn.
type scripted struct{ loads []noise.Load }

func (p *scripted) Read() noise.Reading { return noise.Reading{} }

func (p *scripted) Since(noise.Reading) noise.Load {
	l := p.loads[0]
	p.loads = p.loads[1:]
	return l
}

func load(cores float64) noise.Load {
	return noise.Load{Known: true, Window: 10 * time.Second, CPUs: 2, Outside: time.Duration(cores * 10 * float64(time.Second))}
}

func TestNoisyCaseIsRetried(t *testing.T) {
	probe := &scripted{loads: []noise.Load{load(1.5), load(0.05), load(1.9)}}
	tr := &counting{}
	rs, err := runner.Run(context.Background(), []runner.Case{testCase(tr, 1)},
		runner.Options{Reps: 1, Retries: 2, NoiseThreshold: 0.1, Probe: probe})
	require.NoError(t, err)
	r := rs[0]
	assert.Equal(t, 2, r.Attempts, "the second attempt was quiet: no third")
	assert.False(t, r.Noisy)
	assert.Equal(t, [][]float64{{2}}, r.Samples, "the quiet attempt's samples are kept")
	assert.Len(t, probe.loads, 1)
}

func TestNoisyCaseKeepsQuietestAttempt(t *testing.T) {
	probe := &scripted{loads: []noise.Load{load(1.5), load(0.9), load(1.9)}}
	rs, err := runner.Run(context.Background(), []runner.Case{testCase(&counting{}, 1)},
		runner.Options{Reps: 1, Retries: 2, NoiseThreshold: 0.1, Probe: probe})
	require.NoError(t, err)
	r := rs[0]
	assert.Equal(t, 3, r.Attempts)
	assert.True(t, r.Noisy)
	assert.InDelta(t, 0.9, r.Load.Cores(), 1e-9)
	assert.Equal(t, [][]float64{{2}}, r.Samples)
}

// logged is a trial that appends its name to a shared log on every run.
type logged struct {
	name string
	log  *[]string
}

func (l logged) Run() ([]float64, error) {
	*l.log = append(*l.log, l.name)
	return []float64{1}, nil
}

func (logged) Close() {}

func sharedCase(workload, contender string, shared bool, log *[]string) runner.Case {
	c := testCase(nil, 1)
	c.Workload, c.Contender, c.Shared = workload, contender, shared
	c.Start = func() (runner.Trial, error) { return logged{workload + "/" + contender, log}, nil }
	return c
}

func TestSharedCasesInterleave(t *testing.T) {
	var log []string
	cases := []runner.Case{
		sharedCase("fib", "a", true, &log), sharedCase("fib", "b", true, &log),
		sharedCase("sort", "a", true, &log),
		sharedCase("idle", "a", false, &log), sharedCase("idle", "b", false, &log),
	}
	rs, err := runner.Run(context.Background(), cases, runner.Options{Reps: 3, Warmup: 1})
	require.NoError(t, err)
	assert.Equal(t, []string{
		"fib/a", "fib/b", // warm-ups
		"fib/a", "fib/b", "fib/a", "fib/b", "fib/a", "fib/b", // rounds, interleaved
		"sort/a", "sort/a", "sort/a", "sort/a", // another workload: another bout
		"idle/a", "idle/a", "idle/a", "idle/a", "idle/b", "idle/b", "idle/b", "idle/b", // not shared: one bout each
	}, log)
	require.Len(t, rs, 5)
	for i, r := range rs {
		assert.Equal(t, cases[i].Contender, r.Contender, "results come in the cases' order")
		assert.Len(t, r.Samples, 3)
	}
}

func TestNoisyBoutIsRetriedWhole(t *testing.T) {
	var log []string
	probe := &scripted{loads: []noise.Load{load(1.5), load(0)}}
	rs, err := runner.Run(context.Background(), []runner.Case{sharedCase("fib", "a", true, &log), sharedCase("fib", "b", true, &log)},
		runner.Options{Reps: 1, Retries: 1, NoiseThreshold: 0.1, Probe: probe})
	require.NoError(t, err)
	assert.Equal(t, []string{"fib/a", "fib/b", "fib/a", "fib/b"}, log)
	for _, r := range rs {
		assert.Equal(t, 2, r.Attempts)
		assert.False(t, r.Noisy)
	}
}

func TestProgressLog(t *testing.T) {
	var b strings.Builder
	p := runner.NewProgress(&b, false)
	_, err := runner.Run(context.Background(), []runner.Case{testCase(&counting{}, 1), testCase(&counting{}, 2)},
		runner.Options{Reps: 2, Progress: p})
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	require.Len(t, lines, 5)
	assert.True(t, strings.HasPrefix(lines[0], "[1/2] s/w/c ×1: round 1 of 2  ("), lines[0])
	assert.Contains(t, lines[0], "left)", "an estimate once a slot is done")
	assert.True(t, strings.HasPrefix(lines[3], "[2/2] s/w/c ×2: round 2 of 2"), lines[3])
	assert.True(t, strings.HasPrefix(lines[4], "weftbench: 2 cases in "), lines[4])
}

func TestProgressTerminal(t *testing.T) {
	var b strings.Builder
	_, err := runner.Run(context.Background(), []runner.Case{testCase(&counting{}, 1)},
		runner.Options{Reps: 2, Warmup: 1, Progress: runner.NewProgress(&b, true)})
	require.NoError(t, err)
	assert.Contains(t, b.String(), "s/w/c ×1: warm-up 1 of 1")
	assert.Contains(t, b.String(), "s/w/c ×1: round 2 of 2")
}

func TestTime(t *testing.T) {
	clk := &fakeClock{read: 100 * time.Nanosecond}
	s := runner.TimeOn(clk.now, clk.cpuTime, func() { clk.spend(20*time.Millisecond, 35*time.Millisecond) })
	// The CPU readings enclose the clock readings: the wall time takes in
	// the cost of one reading, the CPU time that of three.
	assert.Equal(t, 20*time.Millisecond+100*time.Nanosecond, s.Wall)
	assert.Equal(t, 35*time.Millisecond+300*time.Nanosecond, s.CPU)
}

func TestTimeReadsTheRealClocks(t *testing.T) {
	var sink []*int
	s := runner.Time(func() {
		// Spin until both clocks have moved: waiting on that, rather than
		// for a duration, makes the spans below positive on any machine.
		for w0, c0 := time.Now(), work.CPUTime(); !time.Now().After(w0) || work.CPUTime() == c0; {
		}
		for i := range 100 {
			sink = append(sink, &i)
		}
	})
	assert.Positive(t, s.Wall)
	assert.Positive(t, s.CPU)
	assert.GreaterOrEqual(t, s.Allocs, uint64(100))
	_ = sink
}
