package scope_test

import (
	"context"
	"errors"
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/weftrt/weft/scheduler"
	"github.com/weftrt/weft/scope"
)

// TestGoexitInBodyWaitsForTasks: a scope body that calls
// runtime.Goexit (t.FailNow in a test) must not let whoever waits go on
// while the scope's tasks, which borrow its variables, have not run or
// still run. The one worker's replacement goroutine is held in its start
// hook until the check is done, so a task left on the deque cannot run
// before the caller looks.
func TestGoexitInBodyWaitsForTasks(t *testing.T) {
	for _, form := range []string{"Run", "Group"} {
		t.Run(form, func(t *testing.T) {
			gate := make(chan struct{})
			var starts atomic.Int32
			p, err := scheduler.New(scheduler.WithWorkers(1), scheduler.WithStartHook(func(int) {
				if starts.Add(1) > 1 { // a replacement goroutine
					<-gate
				}
			}))
			require.NoError(t, err)
			defer p.Close()
			defer close(gate)

			var ran atomic.Bool
			v := catch(func() {
				_ = p.Run(context.Background(), func(w *scheduler.Worker) error {
					if form == "Run" {
						scope.Run(w, func(s *scope.Scope) {
							s.Spawn(func(*scope.Scope) { ran.Store(true) })
							runtime.Goexit()
						})
						return nil
					}
					_ = scope.Group(context.Background(), w, func(s *scope.Scope) error {
						s.Go(func(*scope.Scope) error { ran.Store(true); return nil })
						runtime.Goexit()
						return nil
					})
					return nil
				})
			})
			ranBeforeReturn := ran.Load()
			require.IsType(t, &scheduler.Panic{}, v)
			assert.True(t, errors.Is(v.(*scheduler.Panic), scheduler.ErrGoexit))
			assert.True(t, ranBeforeReturn, "Run returned (ErrGoexit) while a task of the scope had not run")
		})
	}
}
