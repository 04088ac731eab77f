package join

import (
	"context"

	"github.com/weftrt/weft/scheduler"
)

// errNilWorker is the panic for a fork with no worker. Join and Call take
// no nil worker on purpose: a branch that handed a and b to another
// goroutine would make Go's escape analysis move every caller's closures
// to the heap, on the hot path too.
const errNilWorker = "weft/join: nil worker: from outside the pool, use join.On, join.CallOn or join.BothOn"

// errForeignWorker is the panic for a *Worker used off its goroutine,
// caught in race-detector builds.
const errForeignWorker = "weft/join: the *Worker is not the calling goroutine's: a task must fork " +
	"with the *Worker it received, never one kept from another task or passed to a goroutine"

// On runs Join(w, a, b) on a worker of p from a goroutine outside the
// pool and blocks (on a condition variable, never spinning) until both
// have returned. A nil p means scheduler.Default(); a nil ctx panics. ctx
// governs the entry, as in scheduler.Pool.Run: if it ends before the
// task starts, a and b do not run and On returns context.Cause(ctx). On
// returns scheduler.ErrClosed if p is shutting down; panics propagate as
// in Join.
func On(ctx context.Context, p *scheduler.Pool, a, b func(*scheduler.Worker)) error {
	if a == nil || b == nil {
		panic(nilHalf("On", a == nil))
	}
	return run(ctx, p, "On", func(w *scheduler.Worker) { Join(w, a, b) })
}

// CallOn is Call from a goroutine outside the pool, as On is for Join.
func CallOn[T, R any](ctx context.Context, p *scheduler.Pool, f func(*scheduler.Worker, T) R, x, y T) (rx, ry R, err error) {
	if f == nil {
		panic("weft/join: CallOn with a nil function")
	}
	err = run(ctx, p, "CallOn", func(w *scheduler.Worker) { rx, ry = Call(w, f, x, y) })
	return rx, ry, err
}

// BothOn is Both from a goroutine outside the pool, as On is for Join.
func BothOn[A, B any](ctx context.Context, p *scheduler.Pool, a func(*scheduler.Worker) A, b func(*scheduler.Worker) B) (ra A, rb B, err error) {
	if a == nil || b == nil {
		panic(nilHalf("BothOn", a == nil))
	}
	err = run(ctx, p, "BothOn", func(w *scheduler.Worker) { ra, rb = Both(w, a, b) })
	return ra, rb, err
}

// nilHalf is the panic message of Join, Both or their On forms (fn)
// called with a nil a (aNil) or b.
func nilHalf(fn string, aNil bool) string {
	which := "b (the second function)"
	if aNil {
		which = "a (the first function)"
	}
	return "weft/join: " + fn + " with a nil " + which + ": want two non-nil functions"
}

// run is the entry of the On form fn: f on a worker of p (nil: the
// default pool), under Pool.Run's rules for ctx.
func run(ctx context.Context, p *scheduler.Pool, fn string, f func(*scheduler.Worker)) error {
	if ctx == nil {
		panic("weft/join: " + fn + " with a nil context: pass context.Background() or context.TODO()")
	}
	if p == nil {
		p = scheduler.Default()
	}
	return p.Run(ctx, func(w *scheduler.Worker) error {
		f(w)
		return nil
	})
}
