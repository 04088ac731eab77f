package scheduler_test

import (
	"context"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/weftrt/weft/scheduler"
	"github.com/weftrt/weft/scope"
)

// A scope body that calls runtime.Goexit still waits for the scope's
// tasks: Run's caller gets ErrGoexit only once every spawned task has
// run. Same detector as
// TestGoexitInOwnBroadcastPart.
func TestGoexitInScopeBody(t *testing.T) {
	p := pool(t, scheduler.WithWorkers(2))
	defer p.Close()
	releasedEarly := make(chan bool, 1)
	v := catch(func() {
		_ = p.Run(context.Background(), func(w *scheduler.Worker) error {
			scope.Run(w, func(s *scope.Scope) {
				s.Spawn(func(*scope.Scope) {
					releasedEarly <- callerReleasedEarly(p)
				})
				runtime.Goexit()
			})
			return nil
		})
	})
	requireGoexit(t, v)
	require.False(t, <-releasedEarly, "Run's caller was released while a task of the scope still ran")
}

// callerReleasedEarly tells, without timing, whether the Run caller of a
// task that called runtime.Goexit was released while the calling task (a
// scope task, another broadcast part) still runs: once the goroutine that
// Goexited has been replaced, its caller was released first; if instead a
// worker sleeps (the caller waiting) while none was replaced, it waits as
// it must.
func callerReleasedEarly(p *scheduler.Pool) bool {
	for {
		asleep := scheduler.Asleep(p)
		if p.Stats().Replaced >= 1 {
			return true
		}
		if asleep >= 1 {
			return false
		}
		runtime.Gosched()
	}
}
