package join_test

import (
	"context"
	"runtime"
	"testing"
	"weak"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/weftrt/weft/join"
	"github.com/weftrt/weft/scheduler"
)

// payload is what a test's joins are given: the test holds only a weak
// pointer to it, so it can be collected once no frame refers to it.
type payload [64]byte

// nest forks depth joins deep through form, each half of each join
// referring to p, and returns a weak pointer to p. The caller keeps no
// strong reference to p once nest returns.
func nest(w *scheduler.Worker, depth int, form func(w *scheduler.Worker, p *payload, depth int)) weak.Pointer[payload] {
	p := new(payload)
	form(w, p, depth)
	return weak.Make(p)
}

// callNest is nest's form for Call: the payload is the argument.
func callNest(w *scheduler.Worker, p *payload, depth int) {
	var f func(w *scheduler.Worker, p *payload) int
	left := depth
	f = func(w *scheduler.Worker, p *payload) int {
		if left == 0 {
			return int(p[0])
		}
		left--
		a, b := join.Call(w, f, p, p)
		return a + b
	}
	f(w, p)
}

// joinNest is nest's form for Join: b captures the payload.
func joinNest(w *scheduler.Worker, p *payload, depth int) {
	if depth == 0 {
		return
	}
	join.Join(w,
		func(w *scheduler.Worker) { joinNest(w, p, depth-1) },
		func(w *scheduler.Worker) { p[1]++ })
}

// bothNest is nest's form for Both: b captures the payload.
func bothNest(w *scheduler.Worker, p *payload, depth int) int {
	if depth == 0 {
		return 0
	}
	a, b := join.Both(w,
		func(w *scheduler.Worker) int { return bothNest(w, p, depth-1) },
		func(w *scheduler.Worker) int { return int(p[2]) })
	return a + b
}

// TestFinishedJoinsDropTheirArguments: once a join has returned, nothing
// it was given stays reachable from the worker's frame cache, though the
// task goes on. Frames are reused per depth, so without clearing, a long
// task would keep alive whatever its finished recursions were handed (a
// design that cleared only at the end of the job was measured and not
// kept: see docs/forks.md).
func TestFinishedJoinsDropTheirArguments(t *testing.T) {
	forms := map[string]func(w *scheduler.Worker, p *payload, depth int){
		"Call": callNest,
		"Join": joinNest,
		"Both": func(w *scheduler.Worker, p *payload, depth int) { bothNest(w, p, depth) },
	}
	for name, form := range forms {
		t.Run(name, func(t *testing.T) {
			p, err := scheduler.New(scheduler.WithWorkers(1))
			require.NoError(t, err)
			defer p.Close()
			require.NoError(t, p.Run(context.Background(), func(w *scheduler.Worker) error {
				for _, depth := range []int{1, 5} {
					wp := nest(w, depth, form)
					runtime.GC()
					assert.Nil(t, wp.Value(), "depth %d: a finished join's arguments are still reachable while the task runs on", depth)
				}
				// Inside an outer join, the inner recursion's frames are
				// dropped when the outer join leaves.
				var wp weak.Pointer[payload]
				join.Join(w, func(w *scheduler.Worker) { wp = nest(w, 3, form) }, func(*scheduler.Worker) {})
				runtime.GC()
				assert.Nil(t, wp.Value(), "nested: a finished join's arguments are still reachable while the task runs on")
				return nil
			}))
		})
	}
}
