package scope

import (
	"context"
	"errors"

	"github.com/weftrt/weft/scheduler"
)

const errNilWorker = "weft/scope: nil worker: from outside the pool, use scope.On or scope.GroupOn"

// On runs Run(w, body) on a worker of p and blocks the calling goroutine
// (on a condition variable, never spinning) until the scope is done. A nil
// p means scheduler.Default(). It returns ErrClosed if p is shutting down;
// panics propagate as in Run.
func On(p *scheduler.Pool, body func(s *Scope)) error {
	if body == nil {
		panic("weft/scope: On with a nil body")
	}
	return pool(p).Run(context.Background(), func(w *scheduler.Worker) { Run(w, body) })
}

// GroupOn runs Group(ctx, w, body) on a worker of p from a goroutine
// outside the pool, as On does for Run. If ctx is cancelled before body
// starts (already cancelled, while GroupOn waits for a slot, or while
// its task waits for a free worker), body does not run and GroupOn
// returns context.Cause(ctx), as par's On forms do: the same cancellation
// gives the same error whatever its timing.
func GroupOn(ctx context.Context, p *scheduler.Pool, body func(s *Scope) error) error {
	if body == nil {
		panic("weft/scope: GroupOn with a nil body")
	}
	if ctx == nil {
		panic("weft/scope: GroupOn with a nil context: pass context.Background() or context.TODO()")
	}
	var err error
	start := func(w *scheduler.Worker) {
		// Run checks ctx only until the task is queued; it may end while
		// the task waits for a busy worker (or under a supplier that
		// grants a slot despite it), and Group would run body under the
		// done ctx. The body has not started: the cause, as above.
		if ctx.Err() != nil {
			err = context.Cause(ctx)
			return
		}
		err = Group(ctx, w, body)
	}
	if runErr := pool(p).Run(ctx, start); runErr != nil {
		// Run reports a done ctx as ctx.Err() (or the supplier's error
		// wrapping it), which would drop the cause that a cancellation
		// inside the group (s.Context()) carries.
		if ctxErr := ctx.Err(); ctxErr != nil && errors.Is(runErr, ctxErr) {
			return context.Cause(ctx)
		}
		return runErr
	}
	return err
}

func pool(p *scheduler.Pool) *scheduler.Pool {
	if p == nil {
		return scheduler.Default()
	}
	return p
}
