package intake_test

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the run if a test leaves a goroutine behind. The default
// pool (used by the package example) lives for the whole process, by
// design.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, goleak.IgnoreAnyFunction("github.com/weftrt/weft/internal/core.(*Worker).main"))
}
