package scope

import (
	"context"

	"github.com/weftrt/weft/scheduler"
)

const errNilWorker = "weft/scope: nil worker: from outside the pool, use scope.On or scope.GroupOn"

// On runs Run(w, body) on a worker of p from a goroutine outside the pool
// and blocks (on a condition variable, never spinning) until the scope is
// done. A nil p means scheduler.Default(); a nil ctx panics. ctx governs
// the entry, as in scheduler.Pool.Run: if it ends before the task starts,
// body does not run and On returns context.Cause(ctx). On returns
// scheduler.ErrClosed if p is shutting down; panics propagate as in Run.
func On(ctx context.Context, p *scheduler.Pool, body func(s *Scope)) error {
	if body == nil {
		panic("weft/scope: On with a nil body")
	}
	if ctx == nil {
		panic("weft/scope: On with a nil context: pass context.Background() or context.TODO()")
	}
	return pool(p).Run(ctx, func(w *scheduler.Worker) error {
		Run(w, body)
		return nil
	})
}

// GroupOn runs Group(ctx, w, body) on a worker of p from a goroutine
// outside the pool, as On does for Run, and returns Group's error. If ctx
// ends before body starts, body does not run and GroupOn returns
// context.Cause(ctx), as On does.
func GroupOn(ctx context.Context, p *scheduler.Pool, body func(s *Scope) error) error {
	if body == nil {
		panic("weft/scope: GroupOn with a nil body")
	}
	if ctx == nil {
		panic("weft/scope: GroupOn with a nil context: pass context.Background() or context.TODO()")
	}
	return pool(p).Run(ctx, func(w *scheduler.Worker) error { return Group(ctx, w, body) })
}

func pool(p *scheduler.Pool) *scheduler.Pool {
	if p == nil {
		return scheduler.Default()
	}
	return p
}
