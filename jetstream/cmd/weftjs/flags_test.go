package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/weftrt/weft/jetstream/natstest"
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

// errStarted is what the test's embedded server "start" returns: a flag
// that reaches it was not refused in time.
var errStarted = errors.New("test: the embedded server was started")

// Flags no worker can run with are refused, the error naming the flag and
// its value, before the embedded server starts (or, with -url, before
// anything connects: the URL names no server). -work -1s used to be
// taken, and -maxdeliver -1 refused only by NewSource, once the server
// had started.
func TestImpossibleFlagsAreRefusedBeforeStart(t *testing.T) {
	old := startEmbedded
	t.Cleanup(func() { startEmbedded = old })
	started := false
	startEmbedded = func(context.Context, natstest.Options) (*natstest.Server, error) {
		started = true
		return nil, errStarted
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"-work", "-1s"}, "-work -1s"},
		{[]string{"-ackwait", "-1s"}, "-ackwait -1s"},
		{[]string{"-ackwait", "0s"}, "-ackwait 0s"},
		{[]string{"-ackwait", "30ns"}, "-ackwait 30ns"},
		{[]string{"-maxdeliver", "-1"}, "-maxdeliver -1"},
		{[]string{"-maxdeliver", "1"}, "-maxdeliver 1"},
		{[]string{"-tasks", "-1"}, "-tasks -1"},
		{[]string{"-slots", "0"}, "-slots 0"},
		{[]string{"-slots", "16777216"}, "-slots 16777216"},
		{[]string{"-partitions", "-1"}, "-partitions -1"},
		{[]string{"-partitions", "1025"}, "-partitions 1025"},
		{[]string{"-keys", "-1", "-partitions", "8"}, "-keys -1"},
		{[]string{"-keys", "10"}, "-keys 10 without -partitions"},
		{[]string{"-check-order"}, "-check-order without -keys"},
		{[]string{"-stream", ""}, `-stream ""`},
		{[]string{"-consumer", ""}, `-consumer ""`},
		{[]string{"-url", "nats://127.0.0.1:1", "-store", "/tmp/x"}, "-store /tmp/x with -url"},
		{[]string{"-url", "nats://127.0.0.1:1", "-work", "-5ms"}, "-work -5ms"},
	} {
		started = false
		err := run(parseArgs(t, tt.args...))
		require.ErrorContains(t, err, tt.want, "%q", tt.args)
		require.False(t, started, "%q: the embedded server was started", tt.args)
	}
}

// The defaults pass the checks: the embedded server is what comes next.
func TestDefaultFlagsStartTheServer(t *testing.T) {
	old := startEmbedded
	t.Cleanup(func() { startEmbedded = old })
	startEmbedded = func(context.Context, natstest.Options) (*natstest.Server, error) { return nil, errStarted }
	require.ErrorIs(t, run(parseArgs(t)), errStarted)
	require.ErrorIs(t, run(parseArgs(t, "-work", "0s", "-maxdeliver", "0", "-tasks", "0", "-partitions", "1024", "-keys", "3")), errStarted)
}

// `weftjs replay` refuses a negative -n and a -timeout that leaves no
// time before it connects: -n -1 used to be refused only by Replay, once
// connected.
func TestReplayRefusesImpossibleFlags(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"-n", "-1", "-timeout", "1s"}, "-n -1"},
		{[]string{"-timeout", "0s"}, "-timeout 0s"},
		{[]string{"-timeout", "-1m"}, "-timeout -1m0s"},
	} {
		var out, errOut bytes.Buffer
		err := replayCmd(append([]string{"-url", "nats://127.0.0.1:1"}, tt.args...), &out, &errOut)
		require.ErrorContains(t, err, tt.want, "%q", tt.args)
	}
}
