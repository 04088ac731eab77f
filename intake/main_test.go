package intake_test

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/weftrt/weft/scheduler"
)

// TestMain fails the run if a test leaves a goroutine behind. The default
// pool (used by the package example) lives for the whole process, by
// design.
func TestMain(m *testing.M) {
	scheduler.Default() // started before goleak notes the goroutines already running
	goleak.VerifyTestMain(m, goleak.IgnoreCurrent())
}
