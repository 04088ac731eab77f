package cli

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"slices"
	"time"

	"github.com/weftrt/weft/bench/internal/contender"
	"github.com/weftrt/weft/bench/internal/noise"
	"github.com/weftrt/weft/bench/internal/report"
	"github.com/weftrt/weft/bench/internal/result"
	"github.com/weftrt/weft/bench/internal/runner"
	"github.com/weftrt/weft/bench/internal/suite"
)

// Main runs weftbench with args (without the program name) and returns
// the exit status: 0 on success, 2 for bad flags, 1 for any other failure,
// a wrong result computed by a contender included.
func Main(args []string, stdout, stderr io.Writer) int {
	o, err := parseFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(stderr, "weftbench:", err)
		return 2
	}
	if o.list {
		list(stdout)
		return 0
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, o, stdout, stderr); err != nil {
		fmt.Fprintln(stderr, "weftbench:", err)
		return 1
	}
	return 0
}

func run(ctx context.Context, o *options, stdout, stderr io.Writer) error {
	suites, err := suite.Lookup(o.suites)
	if err != nil {
		return err
	}
	contenders, err := contender.Lookup(o.contenders)
	if err != nil {
		return err
	}
	cfg := suite.Config{Sizes: o.sizes, Contenders: contenders, Workers: o.workers}
	var cases []runner.Case
	for _, s := range suites {
		cases = append(cases, s.Cases(cfg)...)
	}
	if len(cases) == 0 {
		return errors.New("no contender can run the chosen suites")
	}
	res := &result.Run{Start: time.Now(), Machine: machine(), Settings: o.settings(suites, contenders)}
	stopProfile, err := startProfile(o.cpuProfile)
	if err != nil {
		return err
	}
	res.Results, err = runner.Run(ctx, cases, o.runnerOptions(stderr))
	res.Elapsed = time.Since(res.Start)
	if perr := stopProfile(); err == nil {
		err = perr
	}
	if err != nil {
		return err
	}
	return output(o, res, stdout, stderr)
}

func output(o *options, res *result.Run, stdout, stderr io.Writer) error {
	write := report.WriteTable
	if o.json {
		write = report.WriteJSON
	}
	if err := write(stdout, res); err != nil {
		return err
	}
	if o.markdown != "" {
		if err := writeFile(o.markdown, res, report.WriteMarkdown); err != nil {
			return err
		}
		fmt.Fprintln(stderr, "weftbench: wrote", o.markdown)
	}
	if o.out == "" {
		return nil
	}
	paths, err := report.WriteDir(o.out, res)
	for _, p := range paths {
		fmt.Fprintln(stderr, "weftbench: wrote", p)
	}
	return err
}

// writeFile renders run with write and writes it to path.
func writeFile(path string, run *result.Run, write func(io.Writer, *result.Run) error) error {
	var b bytes.Buffer
	if err := write(&b, run); err != nil {
		return err
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}

func (o *options) runnerOptions(stderr io.Writer) runner.Options {
	return runner.Options{
		Reps: o.reps, Warmup: o.warmup, MinTime: o.minTime, NoiseThreshold: o.noise, Retries: o.retries,
		Probe: noise.NewProbe(), Progress: runner.NewProgress(stderr, isTerminal(stderr)),
	}
}

func (o *options) settings(ss []suite.Suite, cs []contender.Contender) result.Settings {
	return result.Settings{
		Suites: suite.Names(ss), Contenders: contender.Names(cs), Workers: slices.Clone(o.workers),
		Reps: o.reps, Warmup: o.warmup, MinTime: o.minTime, NoiseThreshold: o.noise, Retries: o.retries,
		Sizes: o.sizeSettings(),
	}
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

func list(w io.Writer) {
	fmt.Fprintln(w, "suites:")
	for _, s := range suite.All() {
		fmt.Fprintf(w, "  %-12s %s\n", s.Name, s.Doc)
	}
	fmt.Fprintln(w, "contenders:")
	for _, c := range contender.All() {
		fmt.Fprintf(w, "  %-12s %s\n", c.Name, c.Doc)
	}
}

// startProfile starts a CPU profile into path, if one is named, and
// returns what stops it and closes the file.
func startProfile(path string) (stop func() error, err error) {
	if path == "" {
		return func() error { return nil }, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("-cpuprofile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("-cpuprofile: %w", err)
	}
	return func() error {
		pprof.StopCPUProfile()
		return f.Close()
	}, nil
}

func machine() result.Machine {
	return result.Machine{
		GOOS: runtime.GOOS, GOARCH: runtime.GOARCH, CPU: cpuModel(),
		CPUs: runtime.GOMAXPROCS(0), GoVersion: runtime.Version(), PGO: pgoProfile(),
	}
}

// pgoProfile returns the base name of the profile this binary was built
// with (go build -pgo, or a default.pgo beside the main package), "" if
// none.
func pgoProfile() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	for _, s := range info.Settings {
		if s.Key == "-pgo" && s.Value != "" && s.Value != "off" {
			return filepath.Base(s.Value)
		}
	}
	return ""
}
