package weftjsotel_test

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the run if a test leaves a goroutine behind: nats.go's
// and the embedded server's end when their connection and server close.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
