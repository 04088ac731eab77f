package slots_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/weftrt/weft/slots"
)

// audit wraps a supplier and checks the protocol from the supplier's side:
// never more than max slots out, every permit granted once and released
// exactly once, marked at most once and only while out, released with the
// Used flag that matches, and NeverUsed only for a slot never marked. It
// also counts what it saw, for tests to inspect.
type audit struct {
	inner slots.Supplier
	max   int

	mu       sync.Mutex
	live     map[uint64]bool // permits out: whether marked used
	released map[uint64]bool
	peak     int
	grants   int
	marks    int
	reasons  map[slots.ReasonKind]int
	errs     []error // errors of failed releases
	problems []string
}

func newAudit(inner slots.Supplier, max int) *audit {
	return &audit{
		inner: inner, max: max,
		live: map[uint64]bool{}, released: map[uint64]bool{},
		reasons: map[slots.ReasonKind]int{},
	}
}

func (a *audit) problem(format string, args ...any) {
	a.problems = append(a.problems, fmt.Sprintf(format, args...))
}

func (a *audit) ReserveSlot(ctx context.Context, rc slots.ReserveContext) (slots.Permit, error) {
	p, err := a.inner.ReserveSlot(ctx, rc)
	if err == nil {
		a.grant(p)
	} else if !p.IsZero() {
		a.mu.Lock()
		a.problem("ReserveSlot returned %v with error %v", p, err)
		a.mu.Unlock()
	}
	return p, err
}

func (a *audit) TryReserveSlot(rc slots.ReserveContext) (slots.Permit, bool) {
	p, ok := a.inner.TryReserveSlot(rc)
	if ok {
		a.grant(p)
	}
	return p, ok
}

func (a *audit) grant(p slots.Permit) {
	a.mu.Lock()
	defer a.mu.Unlock()
	id := p.ID()
	if _, out := a.live[id]; out || a.released[id] {
		a.problem("%v granted twice", p)
	}
	a.live[id] = false
	a.grants++
	a.peak = max(a.peak, len(a.live))
	if a.max > 0 && len(a.live) > a.max {
		a.problem("%d slots out, max %d", len(a.live), a.max)
	}
}

func (a *audit) MarkSlotUsed(u slots.UsedInfo) {
	a.mu.Lock()
	used, out := a.live[u.Permit.ID()]
	switch {
	case !out:
		a.problem("%v marked used while not out", u.Permit)
	case used:
		a.problem("%v marked used twice", u.Permit)
	}
	a.live[u.Permit.ID()] = true
	a.marks++
	a.mu.Unlock()
	a.inner.MarkSlotUsed(u)
}

// ReleaseSlot forgets the permit before passing it on, so that a slot the
// inner supplier grants again at once is not counted twice.
func (a *audit) ReleaseSlot(r slots.ReleaseInfo) {
	a.mu.Lock()
	id := r.Permit.ID()
	used, out := a.live[id]
	switch {
	case a.released[id]:
		a.problem("%v released twice", r.Permit)
	case !out:
		a.problem("%v released but never granted", r.Permit)
	case used != r.Used:
		a.problem("%v released with Used=%v, marked %v", r.Permit, r.Used, used)
	case used && r.Reason.Kind() == slots.ReasonNeverUsed:
		a.problem("%v released as never used after being used", r.Permit)
	}
	delete(a.live, id)
	a.released[id] = true
	a.reasons[r.Reason.Kind()]++
	if err := r.Reason.Err(); err != nil {
		a.errs = append(a.errs, err)
	}
	a.mu.Unlock()
	a.inner.ReleaseSlot(r)
}

func (a *audit) MaxSlots() int { return a.inner.MaxSlots() }

// check fails t if the audit saw a violation or, when idle is set, if any
// slot is still out.
func (a *audit) check(t *testing.T, idle bool) {
	t.Helper()
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, p := range a.problems {
		t.Error(p)
	}
	if idle && len(a.live) != 0 {
		t.Errorf("%d slots still out", len(a.live))
	}
}

func (a *audit) count(k slots.ReasonKind) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.reasons[k]
}
