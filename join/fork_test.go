package join_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync/atomic"
	"testing"
	"time"
	"weak"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/weftrt/weft/join"
	"github.com/weftrt/weft/scheduler"
	"github.com/weftrt/weft/scope"
)

func noop(_ *scheduler.Worker, x int) int { return x }

// TestPrivateForkReachesIdleWorker: a fork stays private to its worker
// until a heartbeat publishes it, and then an idle worker (searching or
// asleep) runs it. a keeps forking (each fork a heartbeat opportunity) and
// stops only once b has run, so the test ends only if b was published and
// taken; it fails, rather than hangs, if that takes implausibly many forks.
func TestPrivateForkReachesIdleWorker(t *testing.T) {
	for _, hb := range []time.Duration{time.Nanosecond, scheduler.DefaultHeartbeat} {
		t.Run(fmt.Sprint(hb), func(t *testing.T) {
			p, err := scheduler.New(scheduler.WithWorkers(2), scheduler.WithHeartbeat(hb))
			require.NoError(t, err)
			defer p.Close()
			var ranOn atomic.Int64
			ranOn.Store(-1)
			forks := 0
			require.NoError(t, p.Run(context.Background(), func(w *scheduler.Worker) error {
				join.Join(w,
					func(w *scheduler.Worker) {
						for ranOn.Load() < 0 && forks < 50_000_000 {
							join.Call(w, noop, 1, 2)
							forks++
						}
					},
					func(w *scheduler.Worker) { ranOn.Store(int64(w.Index())) })
				return nil
			}))
			require.GreaterOrEqual(t, ranOn.Load(), int64(0), "b never ran while a forked %d times", forks)
			st := p.Stats()
			assert.Positive(t, st.Published, "b reached the other worker without a publication?")
			assert.Positive(t, st.Steals)
		})
	}
}

// node is a random fork-join tree: each inner node forks its children
// with Call (values), Join or Both (closures), or spawns them in a scope;
// some leaves panic.
type node struct {
	kind     int // 0: Call, 1: Join, 2: scope, 3: Both
	kids     [2]*node
	visits   atomic.Int32
	panicked bool // a leaf that panics
}

func randomNode(r *rand.Rand, depth int) *node {
	n := &node{kind: r.IntN(4)}
	if depth == 0 || r.IntN(8) == 0 {
		n.panicked = r.IntN(200) == 0
		return n
	}
	n.kids[0], n.kids[1] = randomNode(r, depth-1), randomNode(r, depth-1)
	return n
}

func (n *node) count() (nodes, panics int) {
	nodes = 1
	if n.panicked {
		panics = 1
	}
	for _, k := range n.kids {
		if k != nil {
			a, b := k.count()
			nodes, panics = nodes+a, panics+b
		}
	}
	return nodes, panics
}

func visitNode(w *scheduler.Worker, n *node) int {
	n.visits.Add(1)
	if n.kids[0] == nil {
		if n.panicked {
			panic("leaf")
		}
		return 1
	}
	switch n.kind {
	case 0:
		a, b := join.Call(w, visitNode, n.kids[0], n.kids[1])
		return 1 + a + b
	case 1:
		var a, b int
		join.Join(w,
			func(w *scheduler.Worker) { a = visitNode(w, n.kids[0]) },
			func(w *scheduler.Worker) { b = visitNode(w, n.kids[1]) })
		return 1 + a + b
	case 3:
		a, b := join.Both(w,
			func(w *scheduler.Worker) int { return visitNode(w, n.kids[0]) },
			func(w *scheduler.Worker) int { return visitNode(w, n.kids[1]) })
		return 1 + a + b
	}
	var a, b int
	scope.Run(w, func(s *scope.Scope) {
		s.Spawn(func(s *scope.Scope) { a = visitNode(s.Worker(), n.kids[0]) })
		b = visitNode(s.Worker(), n.kids[1])
	})
	return 1 + a + b
}

// TestForksRunOnceUnderHeartbeat: with a heartbeat that publishes whenever
// a worker is idle (1ns), random trees of Call, Join and scopes, some of
// whose leaves panic, visit every node exactly once on 1 to 8 workers, and
// a panic reaches Run only after every node has been visited: a half is
// finished (run here, popped back, or waited for) even when its sibling
// panics, whether it was private or published. The one exception is a
// Call deep enough to run as two plain calls (join/doc.go, Panics): a
// panic in its first call skips its second, which is never visited, so a
// node under the second child of a Call whose first child holds a
// panicking leaf may be left unvisited (mayBeSkipped); never visited
// twice.
func TestForksRunOnceUnderHeartbeat(t *testing.T) {
	trees, depth := 40, 12
	if testing.Short() {
		trees, depth = 8, 10
	}
	for _, workers := range workerCounts {
		t.Run(fmt.Sprintf("workers=%d", workers), func(t *testing.T) {
			p, err := scheduler.New(scheduler.WithWorkers(workers), scheduler.WithHeartbeat(time.Nanosecond))
			require.NoError(t, err)
			defer p.Close()
			r := rand.New(rand.NewPCG(uint64(workers), 7))
			for i := range trees {
				root := randomNode(r, depth)
				nodes, panics := root.count()
				var got int
				pv := catch(func() {
					require.NoError(t, p.Run(context.Background(), func(w *scheduler.Worker) error {
						got = visitNode(w, root)
						return nil
					}))
				})
				skippable := make(map[*node]bool)
				mayBeSkipped(root, false, skippable)
				var missing []int
				walk(root, func(n *node) {
					if v := n.visits.Load(); v != 1 && !(v == 0 && skippable[n]) {
						missing = append(missing, int(v))
					}
				})
				require.Empty(t, missing, "tree %d: nodes not visited exactly once (visit counts)", i)
				if panics > 0 {
					require.IsType(t, &scheduler.Panic{}, pv, "tree %d", i)
					require.Equal(t, "leaf", pv.(*scheduler.Panic).Value, "tree %d", i)
				} else {
					require.Nil(t, pv, "tree %d", i)
					require.Equal(t, nodes, got, "tree %d", i)
				}
			}
		})
	}
}

// mayBeSkipped marks in out the nodes of n's tree that a panic may leave
// unvisited (skip says n is one): the second child of a Call whose first
// child's tree has a panicking leaf, and all below it. Such a Call, if it
// ran as plain calls, never made its second call. Join, Both and scopes
// finish both halves whatever panics.
func mayBeSkipped(n *node, skip bool, out map[*node]bool) {
	if skip {
		out[n] = true
	}
	if n.kids[0] == nil {
		return
	}
	_, panics := n.kids[0].count()
	mayBeSkipped(n.kids[0], skip, out)
	mayBeSkipped(n.kids[1], skip || (n.kind == 0 && panics > 0), out)
}

// catch runs f and returns what it panicked with, or nil.
func catch(f func()) (v any) {
	defer func() { v = recover() }()
	f()
	return nil
}

func walk(n *node, f func(*node)) {
	f(n)
	for _, k := range n.kids {
		if k != nil {
			walk(k, f)
		}
	}
}

// TestPanickingJoinDropsClosure: a Join or Both whose b panics leaves
// nothing of b in the worker's frame cache (the closure and what it
// captured can be collected before another join reuses the frame).
func TestPanickingJoinDropsClosure(t *testing.T) {
	forms := map[string]func(w *scheduler.Worker, b func()){
		"Join": func(w *scheduler.Worker, b func()) {
			join.Join(w, func(*scheduler.Worker) {}, func(*scheduler.Worker) { b() })
		},
		"Both": func(w *scheduler.Worker, b func()) {
			join.Both(w,
				func(*scheduler.Worker) int { return 0 },
				func(*scheduler.Worker) int { b(); return 1 })
		},
	}
	for name, form := range forms {
		t.Run(name, func(t *testing.T) {
			p, err := scheduler.New(scheduler.WithWorkers(1))
			require.NoError(t, err)
			defer p.Close()
			var wp weak.Pointer[[64]byte]
			catch(func() {
				_ = p.Run(context.Background(), func(w *scheduler.Worker) error {
					captured := new([64]byte)
					wp = weak.Make(captured)
					form(w, func() {
						captured[0] = 1
						panic("b")
					})
					return nil
				})
			})
			runtime.GC()
			assert.Nil(t, wp.Value(), "the panicking join's closure is still reachable")
		})
	}
}

// TestEscapedWorkerCaught: in race-detector builds, Call, Join and Both
// refuse a *Worker used off its goroutine (elsewhere the check would cost
// the hot path, and the race detector is where such bugs are hunted).
func TestEscapedWorkerCaught(t *testing.T) {
	if !raceEnabled {
		t.Skip("checked in race-detector builds only")
	}
	p, err := scheduler.New(scheduler.WithWorkers(1))
	require.NoError(t, err)
	defer p.Close()
	require.NoError(t, p.Run(context.Background(), func(w *scheduler.Worker) error {
		got := make(chan any)
		go func() { got <- catch(func() { join.Call(w, noop, 1, 2) }) }()
		assert.Contains(t, <-got, "is not the calling goroutine's")
		go func() {
			got <- catch(func() { join.Join(w, func(*scheduler.Worker) {}, func(*scheduler.Worker) {}) })
		}()
		assert.Contains(t, <-got, "is not the calling goroutine's")
		go func() {
			got <- catch(func() { join.Both(w, noopHalf, noopHalf) })
		}()
		assert.Contains(t, <-got, "is not the calling goroutine's")
		return nil
	}))
}

func noopHalf(*scheduler.Worker) int { return 0 }
