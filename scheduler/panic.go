package scheduler

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

// CatchWorker is Catch for a task that takes the current worker.
func CatchWorker(f func(*Worker), w *Worker) (p *Panic) {
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

// Recovered turns a value returned by recover into a *Panic, taking the
// stack of the calling goroutine; call it from the deferred function that
// recovered, while the panicking frames are still on the stack. A *Panic
// passes through unchanged, keeping the innermost stack. A nil r (the
// goroutine is exiting through runtime.Goexit, which a task must not call)
// is reported as a Panic too, since the task did not return.
func Recovered(r any) *Panic {
	if p, ok := r.(*Panic); ok {
		return p
	}
	if r == nil {
		r = errGoexit
	}
	return &Panic{Value: r, Stack: debug.Stack()}
}

var errGoexit = errors.New("weft/scheduler: task called runtime.Goexit")

// Repanic re-raises p in the calling goroutine if p is not nil.
func Repanic(p *Panic) {
	if p != nil {
		panic(p)
	}
}
