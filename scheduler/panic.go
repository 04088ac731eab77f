package scheduler

import "github.com/weftrt/weft/internal/core"

// Panic carries a panic out of a task to the goroutine that waits for it:
// Run's caller, the task that joined, the scope's owner, or the pool's
// panic handler for a detached task. It is raised again there with
// panic(*Panic), so a recover that wants the original value does
//
//	if p, ok := recover().(*scheduler.Panic); ok { use(p.Value) }
//
// Its fields: Value is what the task panicked with; Stack is the stack of
// the goroutine where it panicked, taken as the panic was caught (a Panic
// that travels through several waits, as with nested joins, keeps the
// first, innermost stack). Panic is an error: Error formats the value and
// the stack, and Unwrap returns Value if it is an error, so errors.Is and
// errors.As see through a Panic to what the task panicked with.
type Panic = core.Panic

// ErrGoexit is the Value of the *Panic that whoever waits for a task gets
// when the task called runtime.Goexit on a pool worker, as t.FailNow,
// t.Fatal and testify's require functions do. Goexit cannot be stopped:
// it ends the worker goroutine, which the pool replaces. Every task that
// was running on that goroutine (the one that called Goexit and any task
// suspended under it, waiting for a join) fails with this error.
var ErrGoexit = core.ErrGoexit
