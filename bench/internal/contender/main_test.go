package contender_test

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the run if a started contender outlives Close.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
