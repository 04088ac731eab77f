package wefttemporal_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/weftrt/weft/slots"
	wefttemporal "github.com/weftrt/weft/temporal"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
)

// hangGuard bounds every wait of these tests. It is not how long anything
// is expected to take: a wait ends when its condition holds; the guard
// only turns a hang into a failure that says what was awaited.
const hangGuard = time.Minute

// signal lets a test wait for a condition on state that other goroutines
// change (activities, suppliers): they call changed after each change, and
// await re-checks the condition after each call, never on a timer.
type signal struct {
	mu sync.Mutex
	ch chan struct{}
}

func newSignal() *signal { return &signal{ch: make(chan struct{})} }

func (s *signal) changed() {
	s.mu.Lock()
	close(s.ch)
	s.ch = make(chan struct{})
	s.mu.Unlock()
}

func (s *signal) await(t *testing.T, what string, cond func() bool) {
	t.Helper()
	guard := time.NewTimer(hangGuard)
	defer guard.Stop()
	for {
		s.mu.Lock()
		ch := s.ch
		s.mu.Unlock()
		if cond() {
			return
		}
		select {
		case <-ch:
		case <-guard.C:
			t.Fatalf("still waiting, after %v, for %s", hangGuard, what)
		}
	}
}

// spy wraps a weft supplier and records what reaches it, telling sig.
type spy struct {
	inner slots.Supplier
	sig   *signal

	waiting  atomic.Int32 // ReserveSlot calls blocked now
	reserved atomic.Int32 // ReserveSlot calls that returned a permit
	failed   atomic.Int32 // ReserveSlot calls that returned an error

	mu           sync.Mutex
	reservations []wefttemporal.Reservation // from the ctx of each ReserveSlot
	kinds        []string
	marked       []slots.TaskInfo
	released     []slots.ReleaseInfo
}

func newSpy(inner slots.Supplier, sig *signal) *spy { return &spy{inner: inner, sig: sig} }

func (s *spy) ReserveSlot(ctx context.Context, rc slots.ReserveContext) (slots.Permit, error) {
	r, _ := wefttemporal.ReservationOf(ctx)
	s.mu.Lock()
	s.reservations = append(s.reservations, r)
	s.kinds = append(s.kinds, rc.Kind())
	s.mu.Unlock()
	s.waiting.Add(1)
	s.sig.changed()
	p, err := s.inner.ReserveSlot(ctx, rc)
	s.waiting.Add(-1)
	if err != nil {
		s.failed.Add(1)
	} else {
		s.reserved.Add(1)
	}
	s.sig.changed()
	return p, err
}

func (s *spy) TryReserveSlot(rc slots.ReserveContext) (slots.Permit, bool) {
	s.mu.Lock()
	s.kinds = append(s.kinds, rc.Kind())
	s.mu.Unlock()
	return s.inner.TryReserveSlot(rc)
}

func (s *spy) MarkSlotUsed(u slots.UsedInfo) {
	s.mu.Lock()
	s.marked = append(s.marked, u.Task)
	s.mu.Unlock()
	s.inner.MarkSlotUsed(u)
}

func (s *spy) ReleaseSlot(r slots.ReleaseInfo) {
	s.mu.Lock()
	s.released = append(s.released, r)
	s.mu.Unlock()
	s.inner.ReleaseSlot(r)
	s.sig.changed()
}

func (s *spy) MaxSlots() int { return s.inner.MaxSlots() }

func (s *spy) releases() []slots.ReleaseInfo {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]slots.ReleaseInfo(nil), s.released...)
}

// counter counts activities running at once and the most seen, telling
// sig of every change.
type counter struct {
	sig              *signal
	running, peak    atomic.Int32
	started, stopped atomic.Int32
}

func (c *counter) enter() {
	n := c.running.Add(1)
	for p := c.peak.Load(); n > p && !c.peak.CompareAndSwap(p, n); p = c.peak.Load() {
	}
	c.started.Add(1)
	c.sig.changed()
}

func (c *counter) leave() {
	c.running.Add(-1)
	c.stopped.Add(1)
	c.sig.changed()
}

// fanOut is the tests' workflow: it runs n activities "step" at once, with
// arguments 0 to n-1, and returns the sum of their results.
func fanOut(ctx workflow.Context, n int) (int, error) {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: time.Hour,
		RetryPolicy:         &temporal.RetryPolicy{MaximumAttempts: 1},
		WaitForCancellation: true,
	})
	futures := make([]workflow.Future, n)
	for i := range futures {
		futures[i] = workflow.ExecuteActivity(ctx, "step", i)
	}
	sum := 0
	for _, f := range futures {
		var r int
		if err := f.Get(ctx, &r); err != nil {
			return 0, err
		}
		sum += r
	}
	return sum, nil
}

// startWorker starts a worker on queue with tuner, the fanOut workflow and
// step as its activity; it is stopped when the test ends, if the test did
// not stop it. Unless opts say otherwise, Stop waits (up to hangGuard) for
// every task and reservation to end: with the SDK's default of no wait,
// Stop returns while its pollers are still handing back their slots.
func startWorker(t *testing.T, queue string, tuner worker.WorkerTuner, step any, opts worker.Options) *stoppable {
	t.Helper()
	opts.Tuner = tuner
	if opts.WorkerStopTimeout == 0 {
		opts.WorkerStopTimeout = hangGuard
	}
	w := worker.New(server.GetDefaultClient(), queue, opts)
	w.RegisterWorkflowWithOptions(fanOut, workflow.RegisterOptions{Name: "fanout"})
	w.RegisterActivityWithOptions(step, activity.RegisterOptions{Name: "step"})
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	s := &stoppable{w: w}
	t.Cleanup(s.Stop)
	return s
}

type stoppable struct {
	w    worker.Worker
	once sync.Once
}

func (s *stoppable) Stop() { s.once.Do(s.w.Stop) }

// startFanOut starts the fanOut workflow of n activities on queue.
func startFanOut(t *testing.T, queue string, n int) client.WorkflowRun {
	t.Helper()
	run, err := server.GetDefaultClient().ExecuteWorkflow(context.Background(),
		client.StartWorkflowOptions{TaskQueue: queue}, "fanout", n)
	if err != nil {
		t.Fatal(err)
	}
	return run
}

// result waits for run's result.
func result(t *testing.T, run client.WorkflowRun) (int, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	var sum int
	err := run.Get(ctx, &sum)
	if errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("workflow %s still running after %v", run.GetID(), hangGuard)
	}
	return sum, err
}

// sumOfSquares is what fanOut returns when step(i) is i*i.
func sumOfSquares(n int) int { return (n - 1) * n * (2*n - 1) / 6 }
