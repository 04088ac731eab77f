package join_test

import (
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/weftrt/weft/join"
	"github.com/weftrt/weft/scheduler"
)

// sumPlainJoin is the closure form behind join.Plain, as docs/forks.md
// teaches it: closures, and the variables they assign, come after the
// check.
func sumPlainJoin(w *scheduler.Worker, n *treeNode) int {
	if n == nil {
		return 0
	}
	if join.Plain(w) {
		return n.val + sumPlainJoin(w, n.left) + sumPlainJoin(w, n.right)
	}
	var l, r int
	join.Join(w,
		func(w *scheduler.Worker) { l = sumPlainJoin(w, n.left) },
		func(w *scheduler.Worker) { r = sumPlainJoin(w, n.right) })
	return n.val + l + r
}

// Both forms behind join.Plain compute the right sum on every pool size.
func TestPlainRecursion(t *testing.T) {
	const layers = 16
	root := build(1, layers)
	n := 1<<layers - 1
	want := n * (n + 1) / 2
	onPools(t, func(t *testing.T, w *scheduler.Worker) {
		assert.Equal(t, want, treeSum(w, root))
		assert.Equal(t, want, sumPlainJoin(w, root))
	})
}

// Behind join.Plain, the closure form allocates only at the joins that
// may fork: the outermost few on a worker with nobody to feed, not one or
// two per node as join.Join alone does.
func TestPlainJoinAllocatesOnlyWhereItForks(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's builds allocate on their own")
	}
	const layers = 14
	root := build(1, layers)
	p, err := scheduler.New(scheduler.WithWorkers(1))
	require.NoError(t, err)
	defer p.Close()
	var allocs float64
	require.NoError(t, p.Run(t.Context(), func(w *scheduler.Worker) error {
		allocs = testing.AllocsPerRun(5, func() { sumPlainJoin(w, root) })
		return nil
	}))
	nodes := 1<<layers - 1
	assert.Less(t, allocs, float64(nodes)/16, "allocations per run, for %d nodes", nodes)
}

// A busy worker deep in plain joins answers a worker that goes idle while
// it runs, every time. Worker 0 walks a tree of plain joins; worker 1 is
// busy until worker 0 has made its first heartbeat checks (so they saw
// nobody idle, and its deep joins stopped counting), then goes idle and
// must be given part of the walk. The walk runs until a half of it runs on
// worker 1, so a request that worker 0 lost would leave it running to its
// bound of joins.
func TestPlainFeedsAWorkerThatGoesIdle(t *testing.T) {
	p, err := scheduler.New(scheduler.WithWorkers(2))
	require.NoError(t, err)
	defer p.Close()
	rounds := 50
	if testing.Short() {
		rounds = 10
	}
	const bound = 1 << 31 // joins: seconds of plain joins, far past any heartbeat
	for round := range rounds {
		var stolen atomic.Bool
		var joins atomic.Int64
		var walk func(w *scheduler.Worker, depth int) int
		walk = func(w *scheduler.Worker, depth int) int {
			if w.Index() != 0 {
				stolen.Store(true)
			}
			if depth == 0 || stolen.Load() || joins.Add(1) > bound {
				return 0
			}
			if join.Plain(w) {
				return walk(w, depth-1) + walk(w, depth-1)
			}
			a, b := join.Call(w, walk, depth-1, depth-1)
			return a + b
		}
		require.NoError(t, p.Broadcast(t.Context(), func(w *scheduler.Worker) {
			if w.Index() == 0 {
				walk(w, 62)
				return
			}
			for joins.Load() < 100_000 && !stolen.Load() {
				runtime.Gosched()
			}
		}))
		require.True(t, stolen.Load(), "round %d: the idle worker got no work in %d joins", round, joins.Load())
	}
}

// join.Plain must stay within Go's inlining budget: the plain path of a
// recursion that asks it is the user's own code only while it inlines.
func TestPlainInlines(t *testing.T) {
	if raceEnabled {
		t.Skip("race builds use plain_race.go")
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH to ask about inlining")
	}
	out, err := exec.Command(gobin, "build", "-gcflags=-m", "-o", filepath.Join(t.TempDir(), "join.a"), ".").CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.True(t, strings.Contains(string(out), "can inline Plain"), "go build -gcflags=-m said:\n%s", out)
}
