package intake_test

import (
	"context"
	"runtime"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/weftrt/weft/intake"
	"github.com/weftrt/weft/slots"
)

// goexitSupplier calls runtime.Goexit (t.FailNow, require.* in a test's
// supplier) once in MarkSlotUsed or ReleaseSlot when armed. In
// ReleaseSlot it does so after the inner supplier took the slot back, on
// the first release that releaseWhen accepts (any release if it is nil);
// releaseWhen sees every release while armed, so it may count them.
// fired, if set, is closed when the ReleaseSlot Goexit happens.
type goexitSupplier struct {
	slots.Supplier
	markArmed, releaseArmed atomic.Bool
	releaseWhen             func(slots.ReleaseInfo) bool
	fired                   chan struct{}
}

func (s *goexitSupplier) MarkSlotUsed(u slots.UsedInfo) {
	s.Supplier.MarkSlotUsed(u)
	if s.markArmed.CompareAndSwap(true, false) {
		if s.fired != nil {
			close(s.fired)
		}
		runtime.Goexit()
	}
}

func (s *goexitSupplier) ReleaseSlot(r slots.ReleaseInfo) {
	s.Supplier.ReleaseSlot(r)
	if !s.releaseArmed.Load() || (s.releaseWhen != nil && !s.releaseWhen(r)) {
		return
	}
	if s.releaseArmed.CompareAndSwap(true, false) {
		if s.fired != nil {
			close(s.fired)
		}
		runtime.Goexit()
	}
}

// scriptSource answers its first poll with its tasks (it must be asked
// for all of them); with late set, only once the poll's context has
// ended, as a remote source whose reply was already on its way would,
// and with failed set also with the context's error. Every later poll
// waits for its context and answers nothing. polls counts the polls
// begun; second is closed when the second begins.
type scriptSource struct {
	tasks        []intake.Task
	late, failed bool
	polls        atomic.Int64
	second       chan struct{}
}

func newScriptSource(tasks ...intake.Task) *scriptSource {
	return &scriptSource{tasks: tasks, second: make(chan struct{})}
}

func (s *scriptSource) Poll(ctx context.Context, n int) ([]intake.Task, error) {
	switch s.polls.Add(1) {
	case 1:
	case 2:
		close(s.second)
		fallthrough
	default:
		<-ctx.Done()
		return nil, ctx.Err()
	}
	if n < len(s.tasks) {
		panic("scriptSource: asked for " + strconv.Itoa(n) + " of its " + strconv.Itoa(len(s.tasks)) + " tasks")
	}
	if !s.late {
		return s.tasks, nil
	}
	<-ctx.Done()
	if s.failed {
		return s.tasks, ctx.Err()
	}
	return s.tasks, nil
}

// shutdownInTime shuts w down; the deadline only turns a hang into a
// failure.
func shutdownInTime(t *testing.T, w *intake.Worker) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	if err := w.Shutdown(ctx); err != nil {
		t.Fatalf("Shutdown: %v: the worker's books never balanced (stats %+v)", err, w.Stats())
	}
}

// books are the task figures of a worker's Stats that must come out
// exactly.
type books struct{ Received, Started, Acked, Nacked, HandedBack, Terminated uint64 }

// requireBooks checks a worker that has shut down: its figures are want,
// every task it received was started, handed back or (never run)
// terminated, once; every task started was settled once; nothing is
// still settling, and it holds no slot.
func requireBooks(t *testing.T, w *intake.Worker, want books) {
	t.Helper()
	st := w.Stats()
	got := books{st.Received, st.Started, st.Acked, st.Nacked, st.HandedBack, st.Terminated}
	require.Equal(t, want, got, "stats %+v", st)
	require.Equal(t, st.Received, st.Started+st.HandedBack+st.Terminated, "a task was lost or counted twice: %+v", st)
	require.Equal(t, st.Started, st.Acked+st.Nacked, "a started task was not settled once: %+v", st)
	require.Zero(t, st.Settling, "%+v", st)
	require.Zero(t, st.SettleErrors, "a settlement failed (made twice?): %+v", st)
	require.True(t, slotsIdle(w), "slots still held: %+v", st.Slots)
}
