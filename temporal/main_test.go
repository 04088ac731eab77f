//go:build !386

// The Temporal server does not build for 32-bit CPUs (apache/thrift, under
// its ringpop membership, overflows int with math.MaxUint32), so the tests
// that start one are left out of GOARCH=386 builds: there, the package is
// vetted and the tests that call a Supplier directly run
// (main_386_test.go).

package wefttemporal_test

import (
	"testing"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/server/temporaltest"
	"go.uber.org/goleak"
)

// server is one Temporal server, in this process with SQLite in memory,
// shared by every test (starting one takes about a second); each test
// uses task queues of its own.
var server *temporaltest.TestServer

// TestMain starts the server, runs the tests, stops the server, and then
// fails the run if a goroutine is left behind, other than the server's.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(withServer{m}, leftByTheServer...)
}

// leftByTheServer are the goroutines the in-process Temporal server
// leaves running after Stop (measured with no test run at all, and in
// runs of over half a minute, when its task queue scavenger has started):
// its ringpop membership, rate limiters, metrics and pprof listeners, its
// SQLite pool, gRPC's connection machinery, and the SDK workers and
// activities of its own system namespace, which its Stop does not stop. Each is ignored by its
// top function (or, where that is a plain time.Sleep or Accept, by the
// server function under it), so a worker of a test left running (its
// pollers' runPoller), a weft pool or Compute's heartbeat goroutine still
// fails the run.
var leftByTheServer = []goleak.Option{
	goleak.IgnoreTopFunction("database/sql.(*DB).connectionOpener"),
	goleak.IgnoreTopFunction("github.com/rcrowley/go-metrics.(*meterArbiter).tick"),
	goleak.IgnoreTopFunction("github.com/temporalio/ringpop-go.(*Ringpop).startTimers.func1"),
	goleak.IgnoreTopFunction("github.com/temporalio/ringpop-go.(*Ringpop).startTimers.func2"),
	goleak.IgnoreTopFunction("github.com/uber-go/tally/v4.(*scope).reportLoop"),
	goleak.IgnoreTopFunction("go.temporal.io/sdk/internal.(*baseWorker).runEagerTaskDispatcher"),
	goleak.IgnoreTopFunction("go.temporal.io/sdk/internal.(*baseWorker).runTaskDispatcher"),
	goleak.IgnoreTopFunction("go.temporal.io/sdk/internal.(*localActivityTunnel).getTask"),
	goleak.IgnoreTopFunction("go.temporal.io/sdk/internal.(*sharedNamespaceWorker).run"),
	goleak.IgnoreTopFunction("go.temporal.io/sdk/internal/common/backoff.(*ConcurrentRetrier).throttleInternal"),
	goleak.IgnoreTopFunction("go.temporal.io/server/client/history.watchMembershipForClose[...]"),
	goleak.IgnoreTopFunction("go.temporal.io/server/client/matching.watchMembershipForEviction"),
	goleak.IgnoreTopFunction("go.temporal.io/server/common/persistence.(*healthSignalAggregatorImpl).emitMetricsLoop"),
	goleak.IgnoreTopFunction("go.temporal.io/server/common/quotas.(*MapRequestRateLimiterImpl[...]).cleanupLoop"),
	goleak.IgnoreTopFunction("go.temporal.io/server/service/worker.(*PerNamespaceWorkerManager).periodicRefresh"),
	goleak.IgnoreTopFunction("go.temporal.io/server/service/worker/scanner/executor.(*runQueue).remove"),
	goleak.IgnoreTopFunction("go.temporal.io/server/service/worker/scanner/taskqueue.(*Scavenger).awaitExecutor"),
	// The SDK's heartbeat batching, here for the server's own scavenger
	// activity below (ours end with their activities).
	goleak.IgnoreTopFunction("go.temporal.io/sdk/internal.(*temporalInvoker).Heartbeat.func1"),
	goleak.IgnoreTopFunction("google.golang.org/grpc.(*addrConn).resetTransportAndUnlock"),
	goleak.IgnoreTopFunction("google.golang.org/grpc/internal/grpcsync.(*CallbackSerializer).run"),
	goleak.IgnoreAnyFunction("go.temporal.io/server/common/membership/ringpop.(*monitor).startHeartbeatUpsertLoop.func1"),
	goleak.IgnoreAnyFunction("go.temporal.io/server/common/pprof.(*PProfInitializerImpl).Start.func1"),
	goleak.IgnoreAnyFunction("github.com/uber-go/tally/v4/prometheus.Configuration.NewReporter.func5"),
	goleak.IgnoreAnyFunction("go.temporal.io/server/service/worker/scanner.TaskQueueScavengerActivity"),
}

type withServer struct{ m *testing.M }

func (s withServer) Run() int {
	server = temporaltest.NewServer(temporaltest.WithBaseClientOptions(client.Options{Logger: quiet}))
	defer server.Stop()
	// Workflows that never finished (a test stopped their worker) stay in
	// the SDK's process-wide cache, each with a goroutine, until evicted.
	defer worker.PurgeStickyWorkflowCache()
	return s.m.Run()
}
