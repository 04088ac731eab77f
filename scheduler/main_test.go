package scheduler_test

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/weftrt/weft/scheduler"
)

// The default pool lives for the whole process, by design: it is started
// here, before goleak takes note of the goroutines already running, so
// that its workers are the only pool goroutines allowed to outlive the
// tests. (Ignoring every worker goroutine instead would hide a leaked
// worker of any other pool.)
func TestMain(m *testing.M) {
	scheduler.Default()
	goleak.VerifyTestMain(m, goleak.IgnoreCurrent())
}
