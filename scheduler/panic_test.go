package scheduler_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/weftrt/weft/scheduler"
)

// A task's panic reaches Run's caller as the package's own *Panic: %T
// names scheduler, the fields are set, and errors.As sees through it.
func TestPanicIsSchedulersOwnType(t *testing.T) {
	errBoom := errors.New("boom")
	v := catch(func() {
		_ = scheduler.Default().Run(context.Background(), func(*scheduler.Worker) error { panic(errBoom) })
	})
	require.IsType(t, &scheduler.Panic{}, v)
	assert.Equal(t, "*scheduler.Panic", fmt.Sprintf("%T", v))
	pan := v.(*scheduler.Panic)
	assert.Equal(t, errBoom, pan.Value)
	assert.Contains(t, string(pan.Stack), "panic_test.go", "the stack is the task's")
	assert.ErrorIs(t, pan, errBoom)
}

// A Goexit in a task reaches the caller as a *Panic carrying the
// package's ErrGoexit.
func TestGoexitCarriesSchedulersErrGoexit(t *testing.T) {
	p, err := scheduler.New(scheduler.WithWorkers(1))
	require.NoError(t, err)
	defer p.Close()
	v := catch(func() {
		_ = p.Run(context.Background(), func(*scheduler.Worker) error { runtime.Goexit(); return nil })
	})
	require.IsType(t, &scheduler.Panic{}, v)
	assert.ErrorIs(t, v.(*scheduler.Panic), scheduler.ErrGoexit)
}
