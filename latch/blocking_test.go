package latch_test

import (
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"go.uber.org/goleak"

	"github.com/weftrt/weft/latch"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestBlockingWaitParks checks that waiters park (durably block on the
// condition variable, rather than spin) until Set, and that Set wakes all.
func TestBlockingWaitParks(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var b latch.Blocking
		var returned atomic.Int32
		for range 3 {
			go func() {
				b.Wait()
				returned.Add(1)
			}()
		}
		synctest.Wait() // every waiter is durably blocked: none spins
		assert.Zero(t, returned.Load())
		assert.False(t, b.Probe())
		b.Set()
		synctest.Wait()
		assert.EqualValues(t, 3, returned.Load())
		b.Wait() // a set latch does not block
	})
}

func TestBlockingReset(t *testing.T) {
	var b latch.Blocking
	b.Set()
	b.Reset()
	assert.False(t, b.Probe())
}
