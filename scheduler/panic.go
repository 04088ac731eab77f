package scheduler

import (
	"errors"
	"fmt"

	"github.com/weftrt/weft/internal/core"
)

// Panic carries a panic out of a task to the goroutine that waits for it:
// Run's caller, the task that joined, the scope's owner, or the pool's
// panic handler for a detached task. It is raised again there with
// panic(*Panic), so a recover that wants the original value does
//
//	if p, ok := recover().(*scheduler.Panic); ok { use(p.Value) }
//
// A *Panic is an error: errors.Is and errors.As see through it to what
// the task panicked with.
type Panic struct {
	// Value is what the task panicked with (ErrGoexit if it called
	// runtime.Goexit).
	Value any
	// Stack is the stack of the goroutine where the task panicked, taken
	// as the panic was caught. A Panic that travels through several waits,
	// as with nested joins, keeps the first, innermost stack.
	Stack []byte
}

// Error formats the original value and the stack where it happened.
func (p *Panic) Error() string {
	return fmt.Sprintf("weft: task panicked: %v\n\ngoroutine stack at the panic:\n%s", p.Value, p.Stack)
}

// Unwrap returns Value if it is an error.
func (p *Panic) Unwrap() error {
	err, _ := p.Value.(error)
	return err
}

// ErrGoexit is the Value of the *Panic that whoever waits for a task gets
// when the task called runtime.Goexit on a pool worker, as t.FailNow,
// t.Fatal and testify's require functions do. Goexit cannot be stopped:
// it ends the worker goroutine, which the pool replaces. Every task that
// was running on that goroutine (the one that called Goexit and any task
// suspended under it, waiting for a join) fails with this error.
var ErrGoexit = errors.New("weft/scheduler: a task called runtime.Goexit on a pool worker " +
	"(t.FailNow, t.Fatal and require.* do): the worker goroutine was replaced; " +
	"in a test, fail from the test's own goroutine, or use t.Error and return")

// The engine builds the *Panic of a Goexit; it must carry this package's
// ErrGoexit, and it is set before any pool can exist.
func init() { core.ErrGoexit = ErrGoexit }
