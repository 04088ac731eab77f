//go:build 386

package wefttemporal_test

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain, on a 32-bit CPU, where no Temporal server builds (see
// main_test.go), runs the tests that call a Supplier directly and fails the
// run if one leaves a goroutine behind.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
