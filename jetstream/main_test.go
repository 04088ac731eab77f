package weftjs_test

import (
	"os"
	"testing"

	"go.uber.org/goleak"
)

// TestMain runs a crash-test worker when the crash test re-executes this
// binary as a child (see crash_test.go), and otherwise the tests, failing
// the run if one leaves a goroutine behind. nats.go's and the embedded
// server's goroutines end when their connection and server are closed.
func TestMain(m *testing.M) {
	if os.Getenv(childEnv) != "" {
		os.Exit(crashChild())
	}
	goleak.VerifyTestMain(m)
}
