package scope

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/weftrt/weft/scheduler"
)

// TestLaterPanicIsNotTheCause: two tasks of a Group panic at once. The
// first to record its panic is the one Group raises, and must be the
// cause of the group's context; a later one that cancelled in the gap
// between the first one's record and its cancel became the cause
// instead. The gap is held open here by a cancel that waits, for the
// first call, until the second panic has been recorded.
func TestLaterPanicIsNotTheCause(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	entered, release := make(chan struct{}), make(chan struct{})
	calls := 0 // only the first call blocks, and only it runs before the second starts
	st := &state{ctx: ctx, cancel: func(cause error) {
		if calls++; calls == 1 {
			close(entered)
			<-release
		}
		cancel(cause)
	}}
	first, second := &scheduler.Panic{Value: "first"}, &scheduler.Panic{Value: "second"}
	recorded := make(chan struct{})
	go func() {
		defer close(recorded)
		st.recordPanic(first)
	}()
	<-entered // first is recorded, and its cancel has not happened yet
	st.recordPanic(second)
	close(release)
	<-recorded
	assert.Same(t, first, st.panic.Load(), "the first panic is the one Group raises")
	assert.Same(t, error(first), context.Cause(ctx), "the context's cause is the panic Group raises")
}
