package core

import (
	"errors"
	"runtime/debug"
)

// Carrier is the type a panic travels in, out of a task to the goroutine
// that waits for it: scheduler.Panic, which users see in recover and %T.
// The helpers here are generic in it because core cannot import scheduler
// (scheduler is built on core); its fields are all they need: Value is
// what the task panicked with, Stack the stack of the goroutine where it
// panicked, taken as the panic was caught. A panic that travels through
// several waits (nested joins) keeps the first, innermost stack.
type Carrier interface {
	~struct {
		Value any
		Stack []byte
	}
}

// carried is a Carrier's layout, through which the helpers build one.
type carried = struct {
	Value any
	Stack []byte
}

// Catch runs f and returns what it panicked with, wrapped in a *Panic, or
// nil if it returned normally. Fork-join frames use it so that a panicking
// half of a join still lets the other half finish before the panic moves
// on.
func Catch[P Carrier](f func()) (p *P) {
	done := false
	defer func() {
		if !done { // recover only when unwinding: it is not free
			p = Recovered[P](recover())
		}
	}()
	f()
	done = true
	return nil
}

// CatchWorker is Catch for a task that takes the current worker (a
// *scheduler.Worker: W is generic so that core need not import it).
func CatchWorker[P Carrier, W any](f func(W), w W) (p *P) {
	done := false
	defer func() {
		if !done {
			p = Recovered[P](recover())
		}
	}()
	f(w)
	done = true
	return nil
}

// RunThen runs f(w) and then calls then with f's panic, or with nil if f
// returned normally. It is how every job that someone waits for ends: then
// releases the waiter, and it runs even when f calls runtime.Goexit. Goexit
// ends the goroutine and cannot be stopped, so in that case then gets a
// *Panic carrying ErrGoexit and control never returns to RunThen's caller;
// the worker goroutine is replaced (see Worker.main). W is the worker
// type f takes, as for CatchWorker.
func RunThen[P Carrier, W any](w W, f func(W), then func(p *P)) {
	done := false
	defer func() {
		var p *P
		if !done { // recover only when unwinding: it is not free
			p = Recovered[P](recover())
		}
		then(p)
	}()
	f(w)
	done = true
}

// Recovered turns a value returned by recover into a *Panic, taking the
// stack of the calling goroutine; call it from the deferred function that
// recovered, while the panicking frames are still on the stack. A *Panic
// passes through unchanged, keeping the innermost stack. A nil r means the
// goroutine is ending through runtime.Goexit: the task did not return, and
// it is reported as a Panic carrying ErrGoexit.
func Recovered[P Carrier](r any) *P {
	if p, ok := r.(*P); ok {
		return p
	}
	if r == nil {
		r = ErrGoexit
	}
	p := P(carried{Value: r, Stack: debug.Stack()})
	return &p
}

// ErrGoexit is the Value of the *Panic that whoever waits for a task gets
// when the task called runtime.Goexit on a pool worker, as t.FailNow,
// t.Fatal and testify's require functions do. Goexit cannot be stopped: it
// ends the worker goroutine, which the pool replaces. Every task that was
// running on that goroutine (the one that called Goexit and any task
// suspended under it, waiting for a join) fails with this error.
//
// scheduler declares the error users see and sets this variable to it as
// the program starts (scheduler's init), before any pool exists.
var ErrGoexit = errors.New("weft/scheduler: a task called runtime.Goexit on a pool worker " +
	"(t.FailNow, t.Fatal and require.* do): the worker goroutine was replaced; " +
	"in a test, fail from the test's own goroutine, or use t.Error and return")

// Repanic re-raises p in the calling goroutine if p is not nil.
func Repanic[P Carrier](p *P) {
	if p != nil {
		panic(p)
	}
}
