package par_test

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/weftrt/weft/scheduler"
)

// The default pool lives for the whole process, by design: its workers,
// started here, are the only pool goroutines allowed to outlive the tests.
func TestMain(m *testing.M) {
	scheduler.Default() // started before goleak notes the goroutines already running
	goleak.VerifyTestMain(m, goleak.IgnoreCurrent())
}
