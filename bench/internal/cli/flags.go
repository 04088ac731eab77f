package cli

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/weftrt/weft/bench/internal/contender"
	"github.com/weftrt/weft/bench/internal/suite"
	"github.com/weftrt/weft/internal/work"
)

// options are the parsed command line.
type options struct {
	suites     []string
	contenders []string
	workers    []int
	reps       int
	warmup     int
	minTime    time.Duration
	noise      float64
	retries    int
	out        string
	markdown   string
	cpuProfile string
	json       bool
	list       bool
	sizes      suite.Sizes
	sizeFlags  []string // names of the size flags, for the summary's settings
	fs         *flag.FlagSet
}

func parseFlags(args []string, stderr io.Writer) (*options, error) {
	o := &options{sizes: suite.DefaultSizes()}
	fs := flag.NewFlagSet("weftbench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { usage(fs) }
	suites := fs.String("suites", strings.Join(suite.Names(suite.All()), ","), "comma-separated suite `names` to run")
	contenders := fs.String("contenders", strings.Join(contender.Names(contender.All()), ","), "comma-separated contender `names` to measure")
	workers := fs.String("workers", joinInts(sweep(runtime.GOMAXPROCS(0))), "comma-separated worker `counts` (GOMAXPROCS and pool size)")
	fs.IntVar(&o.reps, "reps", 8, "measured `rounds`; each repeats every case at least once")
	fs.IntVar(&o.warmup, "warmup", 1, "`n` unmeasured repetitions of each case before the rounds")
	fs.DurationVar(&o.minTime, "mintime", time.Second, "measure each case for at least this `duration`, spread over the rounds")
	fs.Float64Var(&o.noise, "noise", 0.1, "flag results when more than this `fraction` (0 to 1) of the CPUs was busy outside this process")
	fs.IntVar(&o.retries, "retries", 1, "measure a noisy workload up to `n` more times, keeping the quietest attempt")
	fs.StringVar(&o.out, "out", "", "write results.txt (benchfmt), summary.json, table.txt, table.md and SVG plots into `dir`")
	fs.StringVar(&o.markdown, "markdown", "", "also write the tables as GitHub-flavoured Markdown into `file`, for docs/figures.md")
	fs.StringVar(&o.cpuProfile, "cpuprofile", "", "write a CPU profile of the measurements into `file`: a profile for go build -pgo (docs/forks.md)")
	fs.BoolVar(&o.json, "json", false, "print the JSON summary on stdout instead of the table")
	fs.BoolVar(&o.list, "list", false, "list the suites and contenders and exit")
	o.sizeFlags = o.sizes.RegisterFlags(fs)
	o.fs = fs
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	var err error
	o.suites, o.contenders = splitList(*suites), splitList(*contenders)
	if len(o.suites) == 0 || len(o.contenders) == 0 {
		// An empty list is a mistake, not "none": it used to end in "no
		// contender can run the chosen suites", which names neither.
		return nil, fmt.Errorf("-suites and -contenders must each name at least one (see -list)")
	}
	if o.workers, err = parseInts(*workers); err != nil {
		return nil, fmt.Errorf("-workers: %w", err)
	}
	return o, o.check()
}

func (o *options) check() error {
	switch {
	case o.reps < 1:
		return fmt.Errorf("-reps must be at least 1")
	case o.warmup < 0 || o.retries < 0:
		return fmt.Errorf("-warmup and -retries must not be negative")
	case o.minTime < 0:
		return fmt.Errorf("-mintime must not be negative")
	case o.noise <= 0 || o.noise > 1:
		return fmt.Errorf("-noise must be in (0, 1]")
	case o.sizes.TreeSum < 1 || o.sizes.TreeSum > work.TreeSumMaxLayers:
		return fmt.Errorf("-tree-sum must be in [1, %d]", work.TreeSumMaxLayers)
	case o.sizes.LoopUniform < 1 || o.sizes.LoopIrregular < 1 || o.sizes.LoopMandelbrot < 1 || o.sizes.LoopMatMul < 1 || o.sizes.LoopTiny < 1:
		return fmt.Errorf("-loop-uniform, -loop-irregular, -loop-mandelbrot, -loop-matmul and -loop-tiny must be at least 1")
	}
	if err := o.checkSizes(); err != nil {
		return err
	}
	return o.checkOutputs()
}

// checkSizes fails at once on a size no repetition can run with: a
// negative slice length panics, no ticks or wakes leaves a figure of 0/0
// (which the JSON summary cannot hold, so -out would write nothing after
// the whole run), and no tasks waits out the lost-job timeout.
func (o *options) checkSizes() error {
	s := o.sizes
	for _, c := range []struct {
		name string
		n    int
	}{
		{"fib", s.Fib}, {"fib-cutoff", s.FibCutoff}, {"sort", s.Sort}, {"tree", s.Tree}, {"tree-grain", s.TreeGrain},
		{"ticks", s.Ticks}, {"wakes", s.Wakes}, {"tasks", s.Tasks},
	} {
		if c.n < 1 {
			return fmt.Errorf("-%s must be at least 1", c.name)
		}
	}
	switch {
	case s.Idle <= 0:
		return fmt.Errorf("-idle must be positive")
	case s.WakeGap < 0:
		return fmt.Errorf("-wake-gap must not be negative")
	}
	return nil
}

// checkOutputs fails at once where -markdown's or -cpuprofile's file or -out's
// directory could not be written, rather than after minutes of measuring.
func (o *options) checkOutputs() error {
	if o.markdown != "" {
		if st, err := os.Stat(filepath.Dir(o.markdown)); err != nil || !st.IsDir() {
			return fmt.Errorf("-markdown %s: no such directory", o.markdown)
		}
		if st, err := os.Stat(o.markdown); err == nil && st.IsDir() {
			return fmt.Errorf("-markdown %s: a directory, not a file", o.markdown)
		}
	}
	if o.cpuProfile != "" {
		if st, err := os.Stat(filepath.Dir(o.cpuProfile)); err != nil || !st.IsDir() {
			return fmt.Errorf("-cpuprofile %s: no such directory", o.cpuProfile)
		}
		if st, err := os.Stat(o.cpuProfile); err == nil && st.IsDir() {
			return fmt.Errorf("-cpuprofile %s: a directory, not a file", o.cpuProfile)
		}
	}
	if o.out != "" {
		if st, err := os.Stat(o.out); err == nil && !st.IsDir() {
			return fmt.Errorf("-out %s: a file, not a directory", o.out)
		}
	}
	return nil
}

func usage(fs *flag.FlagSet) {
	fmt.Fprintf(fs.Output(), `Usage: weftbench [flags]

Runs weft beside sequential Go and the usual Go idioms and prints a table
of the results on stdout; progress goes to stderr. With no flags it runs
every suite on the embedded sizes (about two minutes on two cores).

Flags:
`)
	fs.PrintDefaults()
}

// sweep returns 1, 2, 4, ... up to max, and max itself.
func sweep(max int) []int {
	var ns []int
	for n := 1; n < max; n *= 2 {
		ns = append(ns, n)
	}
	return append(ns, max)
}

func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

func parseInts(s string) ([]int, error) {
	var ns []int
	for _, f := range splitList(s) {
		n, err := strconv.Atoi(f)
		if err != nil || n < 1 {
			return nil, fmt.Errorf("%q is not a positive count", f)
		}
		ns = append(ns, n)
	}
	if len(ns) == 0 {
		return nil, fmt.Errorf("no worker counts")
	}
	// Rows and plots go up in worker count whatever order they were given
	// in; a count given twice would measure it twice, in two rows that
	// the table cannot tell apart.
	slices.Sort(ns)
	for i := 1; i < len(ns); i++ {
		if ns[i] == ns[i-1] {
			return nil, fmt.Errorf("%d given twice", ns[i])
		}
	}
	return ns, nil
}

func joinInts(ns []int) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ",")
}

// sizeSettings returns the size flags' values, for the record.
func (o *options) sizeSettings() map[string]string {
	m := map[string]string{}
	for _, name := range o.sizeFlags {
		m[name] = o.fs.Lookup(name).Value.String()
	}
	return m
}
