package main

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"testing"

	"github.com/stretchr/testify/require"
)

// `weftjs -h` prints the usage text, under the program's own name: the
// synopsis with the replay subcommand, the commands it reads while it
// runs, examples, and the flags with their defaults.
func TestUsage(t *testing.T) {
	oldArgs, oldFlags := os.Args, flag.CommandLine
	t.Cleanup(func() { os.Args, flag.CommandLine = oldArgs, oldFlags })
	os.Args = []string{"/tmp/go-build123/b001/exe/weftjs", "-h"}
	flag.CommandLine = flag.NewFlagSet(os.Args[0], flag.ContinueOnError)
	var out bytes.Buffer
	flag.CommandLine.SetOutput(&out)
	parseFlags()

	text := out.String()
	for _, want := range []string{
		"weftjs [flags]",
		"weftjs replay -url URL",
		"replay  put the tasks the workers gave up on",
		"p, pause", "r, resume", "s, stats", "q, quit",
		"SIGUSR1", "Examples:",
		"  -slots int\n", "(default 16)", // the flags, with their defaults
		"-url string",
	} {
		require.Contains(t, text, want)
	}
	require.NotContains(t, text, "Usage of", "Go's bare flag dump")
	require.NotContains(t, text, "go-build", "the binary's path")
}

// `weftjs replay -h` prints the subcommand's own usage text.
func TestReplayUsage(t *testing.T) {
	var out, errOut bytes.Buffer
	err := replayCmd([]string{"-h"}, &out, &errOut)
	require.True(t, errors.Is(err, flag.ErrHelp), "%v", err)
	text := errOut.String()
	for _, want := range []string{
		"weftjs replay -url URL",
		"dead-letter stream",
		"Examples:",
		"  -n int\n", "-timeout duration", "(default 1m0s)",
	} {
		require.Contains(t, text, want)
	}
	require.NotContains(t, text, "Usage of")
}
