package scheduler_test

import (
	"context"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/weftrt/weft/scheduler"
)

// TestStatsCountIdleAndSleepingWorkers: an idle pool's workers are all
// idle and asleep; a task that waits on a channel holds its worker busy,
// and the others stay asleep.
func TestStatsCountIdleAndSleepingWorkers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p, err := scheduler.New(scheduler.WithWorkers(3))
		require.NoError(t, err)
		defer p.Close()
		synctest.Wait()
		s := p.Stats()
		assert.Equal(t, [3]int{3, 3, 3}, [3]int{s.Workers, s.Idle, s.Sleeping})

		release := make(chan struct{})
		require.NoError(t, p.Spawn(context.Background(), func(*scheduler.Worker) { <-release }))
		synctest.Wait()
		s = p.Stats()
		assert.Equal(t, [3]int{3, 2, 2}, [3]int{s.Workers, s.Idle, s.Sleeping}, "one worker busy")

		close(release)
		synctest.Wait()
		s = p.Stats()
		assert.Equal(t, [3]int{3, 3, 3}, [3]int{s.Workers, s.Idle, s.Sleeping})
	})
}
