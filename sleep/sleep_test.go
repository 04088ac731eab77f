package sleep_test

import (
	"math"
	"strconv"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/weftrt/weft/sleep"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestNewRejectsBadCounts(t *testing.T) {
	for _, n := range []int{-1, 0, sleep.MaxWorkers + 1} {
		_, err := sleep.New(n, sleep.Tunables{})
		require.ErrorIs(t, err, sleep.ErrWorkerCount, "n=%d", n)
		assert.Contains(t, err.Error(), ": "+strconv.Itoa(n)+" ", "the value given")
		assert.Contains(t, err.Error(), "(want 1.."+strconv.Itoa(sleep.MaxWorkers)+")", "what is allowed")
	}
	s, err := sleep.New(sleep.MaxWorkers, sleep.Tunables{})
	require.NoError(t, err)
	assert.Equal(t, sleep.MaxWorkers, s.Workers())
}

// TestNewRejectsTooManySearchRounds: a spin that would keep an idle worker
// on a core for good is refused at construction, with the value and the
// bound in the message; the bound itself and the special values are fine.
func TestNewRejectsTooManySearchRounds(t *testing.T) {
	for _, rounds := range []int{sleep.MaxSearchRounds + 1, math.MaxInt} {
		_, err := sleep.New(1, sleep.Tunables{SearchRounds: rounds})
		require.ErrorIs(t, err, sleep.ErrTunables, "SearchRounds=%d", rounds)
		assert.Contains(t, err.Error(), strconv.Itoa(rounds))
		assert.Contains(t, err.Error(), strconv.Itoa(sleep.MaxSearchRounds))
	}
	for _, rounds := range []int{math.MinInt, -1, 0, 1, sleep.MaxSearchRounds} {
		_, err := sleep.New(1, sleep.Tunables{SearchRounds: rounds})
		require.NoError(t, err, "SearchRounds=%d", rounds)
	}
}

// TestIdleWorkersSleep: with nothing to do, every worker ends up blocked on
// its condition variable (durably blocked, so not spinning).
func TestIdleWorkersSleep(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := startPool(t, 4, sleep.Tunables{})
		synctest.Wait()
		inactive, sleeping := p.s.Counts()
		assert.Equal(t, 4, inactive)
		assert.Equal(t, 4, sleeping)
		for i := range 4 {
			assert.Equal(t, uint64(1), p.s.WorkerStats(i).Sleeps)
		}
		p.stop()
	})
}

// TestOneJobWakesOneWorker: one job posted to a sleeping pool wakes exactly
// one worker, which runs it, and the pool goes back to sleep.
func TestOneJobWakesOneWorker(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := startPool(t, 4, sleep.Tunables{})
		synctest.Wait()
		assert.Equal(t, 1, p.post(1), "NewJobs reports the wake")
		synctest.Wait()
		assert.Equal(t, int64(1), p.done.Load())
		total, _ := p.wakeups()
		assert.Equal(t, uint64(1), total)
		_, sleeping := p.s.Counts()
		assert.Equal(t, 4, sleeping)
		p.stop()
	})
}

// TestBurstWakesEveryWorker: n jobs at once wake every sleeper they need.
func TestBurstWakesEveryWorker(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := startPool(t, 4, sleep.Tunables{})
		synctest.Wait()
		assert.Equal(t, 4, p.post(4), "NewJobs reports the wakes")
		total, per := p.wakeups()
		assert.Equal(t, uint64(4), total)
		assert.Equal(t, []uint64{1, 1, 1, 1}, per)
		synctest.Wait()
		assert.Equal(t, int64(4), p.done.Load())
		p.stop()
	})
}

// TestJobsOnBusyQueueWakeSleepers: a post to a queue that already holds
// jobs wakes a sleeper even if another worker is awake and idle.
func TestJobsOnBusyQueueWakeSleepers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := startPool(t, 2, sleep.Tunables{})
		synctest.Wait()
		p.queued.Add(1) // a job nobody was told about: the queue is busy
		p.post(1)
		total, _ := p.wakeups()
		assert.Equal(t, uint64(1), total)
		synctest.Wait()
		assert.Equal(t, int64(2), p.done.Load())
		p.stop()
	})
}

// TestLatchSetWakesExactlyOwner: setting one worker's latch wakes that
// worker and nobody else.
func TestLatchSetWakesExactlyOwner(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := startPool(t, 4, sleep.Tunables{})
		synctest.Wait()
		p.term[2].Set()
		synctest.Wait()
		_, per := p.wakeups()
		assert.Equal(t, []uint64{0, 0, 1, 0}, per)
		inactive, sleeping := p.s.Counts()
		assert.Equal(t, 3, inactive, "worker 2 exited")
		assert.Equal(t, 3, sleeping)
		p.stop()
	})
}

// TestWakeAll wakes every sleeper, which then sleeps again.
func TestWakeAll(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := startPool(t, 3, sleep.Tunables{})
		synctest.Wait()
		p.s.WakeAll()
		synctest.Wait()
		_, per := p.wakeups()
		assert.Equal(t, []uint64{1, 1, 1}, per)
		for i := range 3 {
			assert.Equal(t, uint64(2), p.s.WorkerStats(i).Sleeps)
		}
		p.stop()
	})
}

// TestNewJobsOnAnAwakePoolWakesNobody: with every worker busy, NewJobs
// reports no wake, so a poster does not hand its processor over for
// nothing.
func TestNewJobsOnAnAwakePoolWakesNobody(t *testing.T) {
	s, err := sleep.New(4, sleep.Tunables{})
	require.NoError(t, err)
	assert.Equal(t, 0, s.NewJobs(1, true))
	assert.Equal(t, 0, s.NewJobs(3, false))
}
