package weftjs_test

import (
	"os"
	"testing"

	"go.uber.org/goleak"
)

// TestMain runs a crash-test worker when the crash test re-executes this
// binary as a child (see crash_test.go), a server when a benchmark does
// (see startServerApart), and otherwise the tests, failing
// the run if one leaves a goroutine behind. nats.go's and the embedded
// server's goroutines end when their connection and server are closed.
func TestMain(m *testing.M) {
	if os.Getenv(childEnv) != "" {
		os.Exit(crashChild())
	}
	if os.Getenv(serverChildEnv) != "" {
		os.Exit(serverChild())
	}
	goleak.VerifyTestMain(m)
}
