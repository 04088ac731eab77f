package scheduler_test

import (
	"context"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/weftrt/weft/scheduler"
)

// TestIdlePoolSleeps: after work, every worker blocks on its condition
// variable (durably blocked: synctest.Wait would not return while one
// spins), and one new job wakes exactly one worker, which runs it.
func TestIdlePoolSleeps(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p, err := scheduler.New(scheduler.WithWorkers(4))
		require.NoError(t, err)
		defer p.Close()
		synctest.Wait()
		before := p.Stats()
		assert.EqualValues(t, 4, before.Sleeps)

		ran := false
		require.NoError(t, p.Spawn(context.Background(), func(*scheduler.Worker) { ran = true }))
		synctest.Wait()
		after := p.Stats()
		assert.True(t, ran)
		assert.EqualValues(t, 1, after.Wakeups-before.Wakeups, "one job wakes one worker")
		assert.EqualValues(t, 5, after.Sleeps, "and it goes back to sleep")
	})
}

// TestBroadcastWakesEachWorker: a broadcast part is addressed to one
// worker, and waking "any" sleeper would not do: each is woken directly.
func TestBroadcastWakesEachWorker(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p, err := scheduler.New(scheduler.WithWorkers(3))
		require.NoError(t, err)
		defer p.Close()
		synctest.Wait()
		require.NoError(t, p.Broadcast(context.Background(), func(*scheduler.Worker) {}))
		synctest.Wait()
		assert.EqualValues(t, 3, p.Stats().Wakeups)
	})
}
