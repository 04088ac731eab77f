package suite_test

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the run if a test leaves a pool's or a job's goroutine
// behind.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
