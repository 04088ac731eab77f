package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// parseArgs parses args as weftjs's command line, as main does.
func parseArgs(t *testing.T, args ...string) options {
	t.Helper()
	oldArgs, oldFlags := os.Args, flag.CommandLine
	t.Cleanup(func() { os.Args, flag.CommandLine = oldArgs, oldFlags })
	os.Args = append([]string{"weftjs"}, args...)
	flag.CommandLine = flag.NewFlagSet("weftjs", flag.ContinueOnError)
	flag.CommandLine.SetOutput(io.Discard)
	return parseFlags()
}

// An argument after the flags is refused, not ignored: `weftjs -url URL
// replay` used to start the demo worker on URL's cluster, publishing
// 20000 demo tasks there, instead of replaying anything. The URL names no
// server, so that code that lets the argument through fails otherwise.
func TestExtraArgumentIsRefused(t *testing.T) {
	err := run(parseArgs(t, "-url", "nats://127.0.0.1:1", "replay"))
	require.ErrorContains(t, err, `unexpected argument "replay"`)
}

// Counts no worker can run with are refused before anything starts:
// -slots 0 used to panic in slots.NewFixed after the server had started
// and the tasks were published, and -tasks -1 to run for ever, waiting
// for 18446744073709551615 tasks.
func TestBadCountsAreRefused(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"-slots", "0"}, "-slots 0"},
		{[]string{"-slots", "-3"}, "-slots -3"},
		{[]string{"-tasks", "-1", "-work", "0s"}, "-tasks -1"},
	} {
		o := parseArgs(t, append(tt.args, "-store", t.TempDir())...)
		res := make(chan error, 1)
		go func() {
			defer func() {
				if p := recover(); p != nil {
					res <- fmt.Errorf("panic: %v", p)
				}
			}()
			res <- run(o)
		}()
		select {
		case err := <-res:
			require.ErrorContains(t, err, tt.want, "%v", tt.args)
			require.NotContains(t, err.Error(), "panic", "%v", tt.args)
		case <-time.After(20 * time.Second): // a guard against a hang, not a measurement
			t.Fatalf("%v: run did not return", tt.args)
		}
	}
}
