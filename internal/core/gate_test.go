package core

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/weftrt/weft/deque"
	"github.com/weftrt/weft/sleep"
)

// handPool is a pool of two workers driven by hand on the test's
// goroutine: w runs joins, idle stands for a worker with nothing to do.
func handPool(t *testing.T) (w, idle *Worker, sl *sleep.Sleep) {
	sl, err := sleep.New(2, sleep.Tunables{})
	require.NoError(t, err)
	p := &Pool{sleep: sl, epoch: time.Now(), heartbeat: int64(time.Hour)}
	w, idle = newWorker(p, 0), newWorker(p, 1)
	p.workers = []*Worker{w, idle}
	return w, idle, sl
}

// deepen runs a spine (see direct_test.go) until w is past the forks it
// keeps, and reports the frames it entered, for the caller to leave.
func deepen(w *Worker) []*spineFrame {
	var frames []*spineFrame
	for !w.Direct() {
		frames = append(frames, forkHere(w))
	}
	return frames
}

// forkHere makes a join's fork at the next depth of w, as join.Call's
// forking path does; Fork runs the heartbeat check if one is due.
func forkHere(w *Worker) *spineFrame {
	fr := &spineFrame{}
	w.EnterFrame()
	fr.fork.Init(w, fr)
	w.CacheFrame(fr, &fr.fork)
	w.Fork(&fr.fork)
	return fr
}

// While no worker is idle, a join deep in a recursion reads the gate and
// nothing else: it neither counts toward the heartbeat nor forks.
func TestGateOpenWhileNoneIdle(t *testing.T) {
	w, _, _ := handPool(t)
	w.every, w.beat = 4, 4
	frames := deepen(w)
	assert.Len(t, frames, maxAhead, "forks are kept for the outermost joins")
	assert.Zero(t, atomic.LoadUint32(&w.gate), "deep, and no worker idle at the last check")
	beat := w.beat
	for range 1000 {
		require.True(t, w.Direct())
	}
	assert.Equal(t, beat, w.beat, "a plain join counts only while some worker is idle")
}

// An idle worker that asks (askForForks) makes the busy worker count
// again: its countdown, where it left off, brings the check, and the
// check publishes the oldest fork for the idle worker to take.
func TestGateRequestResumesTheCount(t *testing.T) {
	w, idle, sl := handPool(t)
	w.every, w.beat = 16, 16
	frames := deepen(w)
	beat := w.beat
	require.True(t, w.Direct())
	require.Equal(t, beat, w.beat, "no count while nobody is idle")
	sl.StartLooking(idle.index)
	idle.askForForks()
	joins := 0
	for w.Direct() {
		joins++
	}
	assert.Equal(t, int(beat)-1, joins, "the countdown goes on from where it stopped")
	forkHere(w) // the join that is due makes the fork, and checks
	assert.Equal(t, uint64(1), w.published.Load(), "the check published a fork")
	assert.Equal(t, gateOwner, atomic.LoadUint32(&w.gate), "the request is taken, and w counts while a worker is idle")
	assert.Same(t, &frames[0].fork.job, stealOne(t, idle, w), "the oldest fork goes first")
}

// A worker idle at a check keeps the busy worker counting, even with no
// request: the heartbeat decides, as it did before the gate.
func TestGateCountsWhileAWorkerIsIdle(t *testing.T) {
	w, idle, sl := handPool(t)
	w.every, w.beat = 4, 1
	sl.StartLooking(idle.index) // idle, asking nothing (asleep, say)
	deepen(w)
	assert.True(t, w.counting)
	assert.NotZero(t, atomic.LoadUint32(&w.gate))
	beat := w.beat
	require.True(t, w.Direct())
	assert.Equal(t, beat-1, w.beat, "a plain join counts toward the next check")
	sl.WorkFound()
	for w.Direct() {
	}
	forkHere(w) // the check: nobody idle now
	assert.False(t, w.counting)
	assert.Zero(t, atomic.LoadUint32(&w.gate), "back to the plain path with no count")
}

// stealOne steals a job from v's deque for thief.
func stealOne(t *testing.T, thief, v *Worker) *Job {
	t.Helper()
	j, r := v.deque.Steal()
	require.Equal(t, deque.Success, r, "worker %d stole nothing from worker %d", thief.index, v.index)
	return j
}
