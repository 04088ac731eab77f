package weftjs_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/weftrt/weft/jetstream/natstest"
)

// BenchmarkKeyedVsUnkeyedServerApart is BenchmarkKeyedVsUnkeyed with the
// server in a process of its own, pinned to half the CPUs this process
// may use, and the benchmark, worker and pool pinned to the other half.
// So the server's work per message, which grows with the partitions,
// does not come out of the worker's CPUs, as in a deployment where the
// server runs elsewhere; the embedded benchmark measures both on the
// same CPUs. GOMAXPROCS is the worker's CPU count while it runs (the
// names keep the -cpu suffix they started with). It is skipped where CPU
// affinity cannot be set (outside Linux) or fewer than two CPUs are
// usable.
func BenchmarkKeyedVsUnkeyedServerApart(b *testing.B) {
	worker, server, err := splitCPUs()
	if err != nil {
		b.Skip(err)
	}
	url := startServerApart(b, server)
	restore, err := pinProcess(worker)
	require.NoError(b, err)
	procs := runtime.GOMAXPROCS(len(worker))
	b.Cleanup(func() {
		runtime.GOMAXPROCS(procs)
		require.NoError(b, restore())
	})
	for _, parts := range keyedBenchPartitions {
		b.Run(fmt.Sprintf("partitions-%d", parts), func(b *testing.B) {
			keyedVsUnkeyed(b, url, parts)
		})
	}
}

// serverChildEnv, set in a child process of this test binary, makes it a
// NATS server (serverChild) pinned to the CPUs the variable lists
// ("0,1").
const serverChildEnv = "WEFT_JS_SERVER_CPUS"

// startServerApart starts a server in a child process pinned to cpus,
// and returns its URL. The server ends when the benchmark does.
func startServerApart(b *testing.B, cpus []int) string {
	b.Helper()
	list := make([]string, len(cpus))
	for i, c := range cpus {
		list[i] = strconv.Itoa(c)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$", "-test.bench=^$")
	cmd.Env = append(os.Environ(), serverChildEnv+"="+strings.Join(list, ","))
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	require.NoError(b, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(b, err)
	require.NoError(b, cmd.Start())
	b.Cleanup(func() {
		_ = stdin.Close() // the child's signal to shut its server down
		_ = cmd.Wait()
	})
	url, err := bufio.NewReader(stdout).ReadString('\n')
	require.NoError(b, err, "the server process ended before it gave its URL")
	return strings.TrimSpace(url)
}

// serverChild is the child process of startServerApart: it pins itself,
// starts a server in a directory of its own, writes the server's URL on
// stdout, and runs it until stdin closes (the parent is done, or died).
func serverChild() int {
	var cpus []int
	for f := range strings.SplitSeq(os.Getenv(serverChildEnv), ",") {
		c, err := strconv.Atoi(f)
		if err != nil {
			fmt.Fprintf(os.Stderr, "server child: bad CPU %q in %s\n", f, serverChildEnv)
			return 2
		}
		cpus = append(cpus, c)
	}
	if _, err := pinProcess(cpus); err != nil {
		fmt.Fprintf(os.Stderr, "server child: pinning to CPUs %v: %v\n", cpus, err)
		return 2
	}
	runtime.GOMAXPROCS(len(cpus))
	srv, err := natstest.Start(context.Background(), natstest.Options{}) // its own temporary store
	if err != nil {
		fmt.Fprintln(os.Stderr, "server child:", err)
		return 2
	}
	fmt.Println(srv.URL())
	_, _ = io.Copy(io.Discard, os.Stdin)
	if err := srv.Shutdown(context.Background()); err != nil {
		fmt.Fprintln(os.Stderr, "server child:", err)
		return 2
	}
	return 0
}
