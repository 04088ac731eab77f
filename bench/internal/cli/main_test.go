package cli_test

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the run if the command leaves a goroutine behind.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
