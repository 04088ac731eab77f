package core

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/weftrt/weft/sleep"
)

// spineFrame is a join frame for driving a worker by hand.
type spineFrame struct{ fork Fork }

func (*spineFrame) RunJob(*Worker) {}

// spine runs a right-leaning recursion of n joins on w as join.Call does:
// each join's first half is a leaf (leaf(level)) and its second half the
// rest of the spine, so every frame a join leaves on the stack runs its
// second half inline.
func spine(w *Worker, level, n int, leaf func(level int)) {
	if level == n {
		return
	}
	if w.Direct() {
		leaf(level)
		spine(w, level+1, n, leaf)
		return
	}
	fr, ok := w.EnterFrame().(*spineFrame)
	if !ok {
		fr = &spineFrame{}
		fr.fork.Init(w, fr)
		w.CacheFrame(fr, &fr.fork)
	}
	w.Fork(&fr.fork)
	leaf(level)
	if !w.Reclaim(&fr.fork) {
		panic("no thief here: a published fork is popped back")
	}
	spine(w, level+1, n, leaf)
	w.Unfork(&fr.fork)
}

// A worker deep in a right-leaning recursion of Calls (a peel-one-off
// loop, quicksort of sorted input, a degenerate tree) keeps eight frames
// above the scan's start, all running their second halves inline, and
// joins below them run as plain calls. Once another worker is idle, a
// check must give it work: the rest of the spine. Before, the check (made
// on a plain call) found no private fork and moved the scan's start up;
// the eight joins after it made forks, but each was back inline long
// before the next check, which again came on a plain call: the idle
// worker was never fed, for the whole spine.
//
// The worker is driven by hand, with a budget of 64 joins a check and
// fewer than clockEvery checks, so no clock is read and the outcome does
// not depend on timing.
func TestDeepSpineFeedsIdleWorker(t *testing.T) {
	sl, err := sleep.New(2, sleep.Tunables{})
	require.NoError(t, err)
	p := &Pool{sleep: sl, epoch: time.Now(), heartbeat: int64(time.Hour)}
	w, idle := newWorker(p, 0), newWorker(p, 1)
	p.workers = []*Worker{w, idle}
	w.every, w.beat = 64, 64
	const idleFrom, n = 20, 7 * 64 // seven checks: adapt runs at the eighth
	spine(w, 0, n, func(level int) {
		if level == idleFrom {
			// Awake and searching, and (its first round found nothing)
			// asking the busy worker to look at its heartbeat: w was
			// running plain joins without counting, as no worker was
			// idle at its checks.
			sl.StartLooking(idle.index)
			idle.askForForks()
		}
	})
	assert.Less(t, w.checks, int32(clockEvery), "no clock was read")
	assert.Positive(t, w.published.Load(), "the idle worker was never offered the rest of the spine")
	assert.Equal(t, 0, w.depth)
}
