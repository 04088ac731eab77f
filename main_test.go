package weft_test

import (
	"testing"

	"go.uber.org/goleak"
)

// The default pool lives for the whole process, by design.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, goleak.IgnoreAnyFunction("github.com/weftrt/weft/internal/core.(*Worker).main"))
}
