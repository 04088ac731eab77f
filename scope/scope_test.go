package scope_test

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/weftrt/weft/join"
	"github.com/weftrt/weft/scheduler"
	"github.com/weftrt/weft/scope"
)

var workerCounts = []int{1, 2, 4, 8}

func onPools(t *testing.T, f func(t *testing.T, w *scheduler.Worker)) {
	for _, n := range workerCounts {
		t.Run(fmt.Sprintf("workers=%d", n), func(t *testing.T) {
			p, err := scheduler.New(scheduler.WithWorkers(n))
			require.NoError(t, err)
			defer p.Close()
			require.NoError(t, p.Run(context.Background(), func(w *scheduler.Worker) error {
				f(t, w)
				return nil
			}))
		})
	}
}

// TestSpawnBorrows: tasks write into a slice of the enclosing function;
// all writes are visible once Run returns.
func TestSpawnBorrows(t *testing.T) {
	onPools(t, func(t *testing.T, w *scheduler.Worker) {
		out := make([]int, 1000)
		scope.Run(w, func(s *scope.Scope) {
			for i := range out {
				s.Spawn(func(*scope.Scope) { out[i] = i * i })
			}
		})
		for i, v := range out {
			require.Equal(t, i*i, v)
		}
	})
}

// spawnTree spawns a binary tree of tasks of the given depth and counts
// the nodes.
func spawnTree(s *scope.Scope, depth int, n *atomic.Int64) {
	n.Add(1)
	if depth == 0 {
		return
	}
	for range 2 {
		s.Spawn(func(s *scope.Scope) { spawnTree(s, depth-1, n) })
	}
}

func TestNestedSpawns(t *testing.T) {
	onPools(t, func(t *testing.T, w *scheduler.Worker) {
		var n atomic.Int64
		scope.Run(w, func(s *scope.Scope) { spawnTree(s, 10, &n) })
		assert.EqualValues(t, 1<<11-1, n.Load())
	})
}

// TestJoinsAndScopesNest: joins inside scope tasks and scopes inside
// joins.
func TestJoinsAndScopesNest(t *testing.T) {
	onPools(t, func(t *testing.T, w *scheduler.Worker) {
		var n atomic.Int64
		scope.Run(w, func(s *scope.Scope) {
			for range 8 {
				s.Spawn(func(s *scope.Scope) {
					join.Join(s.Worker(),
						func(w *scheduler.Worker) {
							scope.Run(w, func(s *scope.Scope) { spawnTree(s, 4, &n) })
						},
						func(*scheduler.Worker) { n.Add(1) })
				})
			}
		})
		assert.EqualValues(t, 8*(1<<5-1+1), n.Load())
	})
}

func TestScopeOutsidePool(t *testing.T) {
	var n atomic.Int64
	require.NoError(t, scope.On(context.Background(), nil, func(s *scope.Scope) { spawnTree(s, 5, &n) }))
	assert.EqualValues(t, 1<<6-1, n.Load())
	boom := errors.New("boom")
	err := scope.GroupOn(context.Background(), nil, func(s *scope.Scope) error {
		s.Go(func(*scope.Scope) error { return boom })
		return nil
	})
	assert.Same(t, boom, err)
	p, err := scheduler.New(scheduler.WithWorkers(1))
	require.NoError(t, err)
	p.Close()
	assert.ErrorIs(t, scope.On(context.Background(), p, func(*scope.Scope) {}), scheduler.ErrClosed)
}

func TestPanicAfterAllFinished(t *testing.T) {
	onPools(t, func(t *testing.T, w *scheduler.Worker) {
		for _, where := range []string{"body", "task", "nested task"} {
			var finished atomic.Int64
			r := catch(func() {
				scope.Run(w, func(s *scope.Scope) {
					for i := range 20 {
						s.Spawn(func(s *scope.Scope) {
							if i == 7 && where == "task" {
								panic(where)
							}
							if i == 7 && where == "nested task" {
								s.Spawn(func(*scope.Scope) { panic(where) })
							}
							finished.Add(1)
						})
					}
					if where == "body" {
						panic(where)
					}
				})
			})
			p, ok := r.(*scheduler.Panic)
			require.True(t, ok, "%s: got %T", where, r)
			assert.Equal(t, where, p.Value)
			want := int64(20)
			if where == "task" {
				want = 19
			}
			assert.Equal(t, want, finished.Load(), "%s: every other task finished first", where)
		}
	})
}

func catch(f func()) (r any) {
	defer func() { r = recover() }()
	f()
	return nil
}

func TestGroupFirstErrorCancels(t *testing.T) {
	onPools(t, func(t *testing.T, w *scheduler.Worker) {
		first := errors.New("first")
		var cancelled atomic.Int64
		err := scope.Group(context.Background(), w, func(s *scope.Scope) error {
			s.Go(func(*scope.Scope) error { return first })
			for range 10 {
				s.Go(func(s *scope.Scope) error {
					// Wait for the cancellation without blocking the
					// worker: on one worker the failing task may not have
					// run yet. Never finishes if the error does not cancel.
					for s.Context().Err() == nil {
						s.Worker().Yield()
					}
					cancelled.Add(1)
					return s.Context().Err()
				})
			}
			return nil
		})
		assert.Same(t, first, err)
		assert.EqualValues(t, 10, cancelled.Load())
	})
}

func TestGroupBodyErrorAndSuccess(t *testing.T) {
	onPools(t, func(t *testing.T, w *scheduler.Worker) {
		body := errors.New("body")
		err := scope.Group(context.Background(), w, func(*scope.Scope) error { return body })
		assert.Same(t, body, err)
		var n atomic.Int64
		err = scope.Group(context.Background(), w, func(s *scope.Scope) error {
			for range 100 {
				s.Go(func(*scope.Scope) error { n.Add(1); return nil })
			}
			return nil
		})
		assert.NoError(t, err)
		assert.EqualValues(t, 100, n.Load())
	})
}

func TestGroupParentContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var seen error
	err := scope.GroupOn(ctx, nil, func(s *scope.Scope) error { seen = s.Context().Err(); return seen })
	assert.ErrorIs(t, err, context.Canceled) // Run refuses a done ctx
	assert.NoError(t, seen, "the body never ran")
	onPools(t, func(t *testing.T, w *scheduler.Worker) {
		err := scope.Group(ctx, w, func(s *scope.Scope) error { return s.Context().Err() })
		assert.ErrorIs(t, err, context.Canceled)
	})
}

func TestMisuse(t *testing.T) {
	assert.PanicsWithValue(t, "weft/scope: Run with a nil body", func() { scope.Run(nil, nil) })
	assert.PanicsWithValue(t, "weft/scope: Group with a nil body", func() { _ = scope.Group(context.Background(), nil, nil) })
	nilWorker := "weft/scope: nil worker: from outside the pool, use scope.On or scope.GroupOn"
	assert.PanicsWithValue(t, nilWorker, func() { scope.Run(nil, func(*scope.Scope) {}) })
	assert.PanicsWithValue(t, "weft/scope: On with a nil body", func() { _ = scope.On(context.Background(), nil, nil) })
	body := func(*scope.Scope) error { return nil }
	assert.PanicsWithValue(t, "weft/scope: GroupOn with a nil context: pass context.Background() or context.TODO()",
		func() {
			//lint:ignore SA1012 a nil context is the misuse under test
			_ = scope.GroupOn(nil, nil, body)
		})
	onPools(t, func(t *testing.T, w *scheduler.Worker) {
		scope.Run(w, func(s *scope.Scope) {
			assert.PanicsWithValue(t, "weft/scope: Spawn with a nil function", func() { s.Spawn(nil) })
			assert.PanicsWithValue(t, "weft/scope: Go needs a scope made by Group (Run returns no error): "+
				"use s.Spawn in a Run scope, or scope.Group for tasks that return errors", func() {
				s.Go(func(*scope.Scope) error { return nil })
			})
		})
		assert.PanicsWithValue(t, "weft/scope: Group with a nil context: pass context.Background() or context.TODO()",
			func() {
				//lint:ignore SA1012 a nil context is the misuse under test
				_ = scope.Group(nil, w, body)
			})
		var escaped *scope.Scope
		scope.Run(w, func(s *scope.Scope) { escaped = s })
		for range 2 { // every time, not only the first
			assert.PanicsWithValue(t, "weft/scope: spawn on a scope that has finished: a *Scope is valid only until "+
				"the function it was handed to returns; spawn from inside that function", func() {
				escaped.Spawn(func(*scope.Scope) {})
			})
		}
	})
}

// TestGroupPanicCancels: a panic in a Group task (or its body) cancels the
// group's context as an error would, so siblings that wait for ctx.Done()
// stop, and the panic reaches the caller with the panic as the cause.
func TestGroupPanicCancels(t *testing.T) {
	p, err := scheduler.New(scheduler.WithWorkers(2))
	require.NoError(t, err)
	defer p.Close()
	for _, where := range []string{"task", "body"} {
		var cause error
		v := catch(func() {
			_ = scope.GroupOn(context.Background(), p, func(s *scope.Scope) error {
				s.Go(func(s *scope.Scope) error {
					<-s.Context().Done()
					cause = context.Cause(s.Context())
					return nil
				})
				if where == "body" {
					panic("boom")
				}
				s.Go(func(*scope.Scope) error { panic("boom") })
				return nil
			})
		})
		require.IsType(t, &scheduler.Panic{}, v, where)
		assert.Equal(t, "boom", v.(*scheduler.Panic).Value, where)
		var pan *scheduler.Panic
		assert.ErrorAs(t, cause, &pan, "%s: the context's cause is the panic", where)
	}
}

// TestSpawnFromAnotherGoroutinePanics: a *Scope used on a goroutine other
// than its task's is refused with the rule, not pushed onto a deque that
// only its owner may touch.
func TestSpawnFromAnotherGoroutinePanics(t *testing.T) {
	onPools(t, func(t *testing.T, w *scheduler.Worker) {
		scope.Run(w, func(s *scope.Scope) {
			got := make(chan any)
			go func() { got <- catch(func() { s.Spawn(func(*scope.Scope) {}) }) }()
			assert.Contains(t, <-got, "spawn with a *Scope from another goroutine")
		})
	})
}

// TestSpawnInsideBlockNamesBlock: inside Block's f the task has given its
// worker to a stand-in, so a spawn there is refused; the message says
// why, not only "another goroutine", which the caller does not see.
func TestSpawnInsideBlockNamesBlock(t *testing.T) {
	onPools(t, func(t *testing.T, w *scheduler.Worker) {
		scope.Run(w, func(s *scope.Scope) {
			var got any
			s.Worker().Block(func() { got = catch(func() { s.Spawn(func(*scope.Scope) {}) }) })
			assert.Contains(t, got, "inside Worker.Block's f")
		})
	})
}
