package core

import (
	"errors"
	"fmt"
	"runtime/debug"
)

// Panic carries a panic out of a task to the goroutine that waits for the
// task, which re-raises it with panic(*Panic). Value is what the task
// panicked with; Stack is the stack of the goroutine where it panicked,
// taken as the panic was caught. A Panic that travels through several
// waits (nested joins) keeps the first, innermost stack.
type Panic struct {
	Value any
	Stack []byte
}

// Error formats the original value and the stack where it happened.
func (p *Panic) Error() string {
	return fmt.Sprintf("weft: task panicked: %v\n\ngoroutine stack at the panic:\n%s", p.Value, p.Stack)
}

// Unwrap returns Value if it is an error, so errors.Is and errors.As see
// through a Panic to what the task panicked with.
func (p *Panic) Unwrap() error {
	err, _ := p.Value.(error)
	return err
}

// Catch runs f and returns what it panicked with, wrapped in a *Panic, or
// nil if it returned normally. Fork-join frames use it so that a panicking
// half of a join still lets the other half finish before the panic moves
// on.
func Catch(f func()) (p *Panic) {
	done := false
	defer func() {
		if !done { // recover only when unwinding: it is not free
			p = Recovered(recover())
		}
	}()
	f()
	done = true
	return nil
}

// CatchWorker is Catch for a task that takes the current worker (a
// *scheduler.Worker: W is generic so that core need not import it).
func CatchWorker[W any](f func(W), w W) (p *Panic) {
	done := false
	defer func() {
		if !done {
			p = Recovered(recover())
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
func RunThen[W any](w W, f func(W), then func(p *Panic)) {
	done := false
	defer func() {
		var p *Panic
		if !done { // recover only when unwinding: it is not free
			p = Recovered(recover())
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
func Recovered(r any) *Panic {
	if p, ok := r.(*Panic); ok {
		return p
	}
	if r == nil {
		r = ErrGoexit
	}
	return &Panic{Value: r, Stack: debug.Stack()}
}

// ErrGoexit is the Value of the *Panic that whoever waits for a task gets
// when the task called runtime.Goexit on a pool worker, as t.FailNow,
// t.Fatal and testify's require functions do. Goexit cannot be stopped: it
// ends the worker goroutine, which the pool replaces. Every task that was
// running on that goroutine (the one that called Goexit and any task
// suspended under it, waiting for a join) fails with this error.
var ErrGoexit = errors.New("weft/scheduler: a task called runtime.Goexit on a pool worker " +
	"(t.FailNow, t.Fatal and require.* do): the worker goroutine was replaced; " +
	"in a test, fail from the test's own goroutine, or use t.Error and return")

// Repanic re-raises p in the calling goroutine if p is not nil.
func Repanic(p *Panic) {
	if p != nil {
		panic(p)
	}
}
