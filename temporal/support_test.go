package wefttemporal_test

import (
	"context"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/weftrt/weft/slots"
	wefttemporal "github.com/weftrt/weft/temporal"
	tlog "go.temporal.io/sdk/log"
)

// What every test uses, with a server or without.

// quiet is the SDK's logger for the tests' clients and workers: it keeps
// errors (a test that fails can show them with -v) and drops the rest.
var quiet = tlog.NewStructuredLogger(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError})))

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

// heldStep is the tests' gated activity: step(i) returns i*i. It counts
// itself in c, calls started(i) if given, holds until gate is closed (or
// its ctx ends), then calls work(i) if given.
func heldStep(c *counter, gate <-chan struct{}, started, work func(i int)) func(ctx context.Context, i int) (int, error) {
	return func(ctx context.Context, i int) (int, error) {
		c.enter()
		defer c.leave()
		if started != nil {
			started(i)
		}
		select {
		case <-gate:
		case <-ctx.Done():
			return 0, ctx.Err()
		}
		if work != nil {
			work(i)
		}
		return i * i, nil
	}
}
