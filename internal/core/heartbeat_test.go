package core

import (
	"testing"
	"time"

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

// When every idle worker sleeps, a fork may wake one once per heartbeat
// interval, or at once when forks are coarse (a budget of one, and at
// least coarseGap since the worker last looked). Times are set hours
// apart from the pool's clock, so the outcome does not depend on how long
// the test takes.
func TestMayWakeSleeper(t *testing.T) {
	const hour = int64(time.Hour)
	cases := []struct {
		name                      string
		every                     int32
		lastLook, lastPublish, at int64 // relative to the pool's clock; at: lastCheck
		want                      bool
	}{
		{"coarse fork, published just now", 1, -hour, hour, 0, true},
		{"coarse budget, looked just now, published just now", 1, hour, hour, 0, false},
		{"coarse budget, looked just now, interval passed", 1, hour, -hour, 0, true},
		{"fine budget, interval passed at the last clock read", 64, -hour, -hour, 0, true},
		{"fine budget, interval not passed at the last clock read", 64, -hour, -hour, -hour + 1, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := &Pool{epoch: time.Now(), heartbeat: int64(100 * time.Microsecond)}
			base := p.now()
			w := &Worker{pool: p, every: c.every, lastLook: base + c.lastLook,
				lastPublish: base + c.lastPublish, lastCheck: base + c.at}
			_, ok := w.mayWakeSleeper()
			assert.Equal(t, c.want, ok)
		})
	}
}
