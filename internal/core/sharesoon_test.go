package core

import (
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/weftrt/weft/latch"
	"github.com/weftrt/weft/sleep"
)

// asleep puts worker i of sl to sleep on a goroutine of its own, as an
// idle worker with nothing to find, and returns once it is counted
// sleeping. The worker searches and sleeps again after each wake-up until
// the returned stop sets its latch.
func asleep(t *testing.T, sl *sleep.Sleep, i int) (stop func()) {
	var l latch.Owned
	l.Init(sl, i)
	done := make(chan struct{})
	go func() {
		defer close(done)
		idle := sl.StartLooking(i)
		for !l.Probe() {
			sl.NoWorkFound(&idle, l.Core())
		}
		sl.WorkFound()
	}()
	waitAsleep(sl)
	return func() {
		l.Set()
		<-done
	}
}

// waitAsleep returns once a worker of sl is counted sleeping.
func waitAsleep(sl *sleep.Sleep) {
	for _, sleeping := sl.Counts(); sleeping == 0; _, sleeping = sl.Counts() {
		runtime.Gosched()
	}
}

// A busy worker wakes a sleeper for a private fork at most once a
// heartbeat interval, lest it wake one for every piece too small to pay
// for the wake-up. A caller that knows the forks to come hold an interval
// of work or more (a loop's probe) says so with ShareSoon: the next fork
// then checks at once and may wake the sleeper, whatever the interval
// since the last publication. A smaller promise changes nothing, and the
// promise lasts one check. Before, a loop of a few hundred microseconds,
// started less than an interval after the worker last published, ran
// alone for up to an interval before its sleeper was woken.
func TestShareSoonWakesASleeperAtOnce(t *testing.T) {
	w, idle, sl := handPool(t) // a heartbeat interval of an hour
	stop := asleep(t, sl, idle.index)
	defer stop()
	w.every = 64
	w.lastCheck = w.pool.now()
	w.lastPublish = w.lastCheck // published just now

	w.CheckNextFork()
	forkHere(w)
	require.Zero(t, w.published.Load(), "the interval has not passed")

	w.ShareSoon(time.Minute) // less than an interval
	forkHere(w)
	require.Zero(t, w.published.Load(), "a promise of less than an interval woke a sleeper")

	w.ShareSoon(2 * time.Hour)
	forkHere(w)
	require.Equal(t, uint64(1), w.published.Load(), "a promise of an interval's work did not publish at once")
	assert.NotZero(t, sl.WorkerStats(idle.index).Wakeups, "the sleeper was not woken")

	require.NotNil(t, w.Pop(), "the published fork, taken back")
	waitAsleep(sl)
	w.CheckNextFork()
	forkHere(w)
	assert.Equal(t, uint64(1), w.published.Load(), "the promise outlasted its check")
}
