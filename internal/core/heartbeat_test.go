package core

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// The budget must fall in one step when checks come late, so that a worker
// whose forks turn coarse after a fine-grained phase soon checks often
// enough to serve idle workers; and it must grow only by doubling.
func TestAdaptShrinksInProportionAndGrowsByDoubling(t *testing.T) {
	const target = int64(clockEvery * checkPeriod)
	cases := []struct {
		name      string
		every     int32
		dt        int64
		wantEvery int32
	}{
		{"long past: one fork", 512, 1000 * target, 1},
		{"four times late: a quarter", 512, 4 * target, 128},
		{"on target: unchanged", 64, target, 64},
		{"twice late: still unchanged", 64, 2 * target, 64},
		{"early: doubles", 64, target / 4, 128},
		{"early at the cap: stays", maxEvery, target / 4, maxEvery},
		{"late at one: stays", 1, 100 * target, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := &Worker{every: c.every, lastCheck: 1000}
			w.adapt(1000 + c.dt)
			assert.Equal(t, c.wantEvery, w.every)
			assert.Equal(t, w.every, w.beat, "the countdown restarts from the new budget")
			assert.Equal(t, 1000+c.dt, w.lastCheck)
		})
	}
}
