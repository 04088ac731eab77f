package natstest_test

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the run if a test leaves a goroutine behind: a server
// shut down must take all of its own with it.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
