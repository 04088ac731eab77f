package weftotel_test

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the run if a test leaves a goroutine behind: the
// instruments start none, and every pool and worker a test makes is
// closed before it ends.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
