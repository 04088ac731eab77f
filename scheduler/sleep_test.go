package scheduler_test

import (
	"context"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/weftrt/weft/internal/core"
	"github.com/weftrt/weft/latch"
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

// TestLatchSetWakesExactlyItsOwner: a worker whose joined job was stolen
// sleeps on the job's latch; the thief's Set wakes that worker and no
// other.
func TestLatchSetWakesExactlyItsOwner(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p, err := scheduler.New(scheduler.WithWorkers(3))
		require.NoError(t, err)
		defer p.Close()
		synctest.Wait()
		started, release := make(chan struct{}), make(chan struct{})
		var before scheduler.Stats
		go func() {
			_ = p.Run(context.Background(), func(w *scheduler.Worker) error {
				e := (*core.Worker)(w) // the engine's view, with the job API
				j := &stealMe{started: started, release: release}
				j.job.Init(j)
				j.latch.Init(e.Sleep(), e.Index())
				e.Push(&j.job)
				<-started // a thief runs it; our deque is now empty
				if e.Pop() != nil {
					t.Error("job still in the deque")
				}
				e.WaitUntil(&j.latch)
				return nil
			})
		}()
		<-started
		synctest.Wait() // owner asleep on the latch, thief blocked in the job
		before = p.Stats()
		close(release)
		synctest.Wait()
		after := p.Stats()
		assert.EqualValues(t, 1, after.Wakeups-before.Wakeups, "only the owner is woken")
	})
}

// stealMe is a job that signals when a thief starts it and finishes when
// released, then sets its owner's latch.
type stealMe struct {
	job              core.Job
	latch            latch.Owned
	started, release chan struct{}
}

func (j *stealMe) RunJob(*core.Worker) {
	close(j.started)
	<-j.release
	j.latch.Set()
}
