package intaketest

import (
	"context"

	"github.com/weftrt/weft/slots"
)

// auditSupplier passes every call to inner and shows it to the ledger.
type auditSupplier struct {
	inner slots.Supplier
	l     *Ledger
}

func (a auditSupplier) ReserveSlot(ctx context.Context, rc slots.ReserveContext) (slots.Permit, error) {
	p, err := a.inner.ReserveSlot(ctx, rc)
	if err == nil {
		a.grant(p)
	}
	return p, err
}

func (a auditSupplier) TryReserveSlot(rc slots.ReserveContext) (slots.Permit, bool) {
	p, ok := a.inner.TryReserveSlot(rc)
	if ok {
		a.grant(p)
	}
	return p, ok
}

func (a auditSupplier) grant(p slots.Permit) {
	l := a.l
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, dup := l.out[p.ID()]; dup {
		l.problem("%v granted twice", p)
	}
	l.out[p.ID()] = false
	l.stats.Grants++
	l.stats.PeakOut = max(l.stats.PeakOut, len(l.out))
	l.check("grant")
}

func (a auditSupplier) MarkSlotUsed(u slots.UsedInfo) {
	l := a.l
	l.mu.Lock()
	used, ok := l.out[u.Permit.ID()]
	switch {
	case !ok:
		l.problem("%v marked used, but not out", u.Permit)
	case used:
		l.problem("%v marked used twice", u.Permit)
	default:
		l.out[u.Permit.ID()] = true
		l.used++
		l.check("mark")
	}
	l.mu.Unlock()
	a.inner.MarkSlotUsed(u)
}

func (a auditSupplier) ReleaseSlot(r slots.ReleaseInfo) {
	l := a.l
	l.mu.Lock()
	used, ok := l.out[r.Permit.ID()]
	switch {
	case !ok:
		l.problem("%v released, but not out", r.Permit)
	case used != r.Used:
		l.problem("%v released with Used %v, marked %v", r.Permit, r.Used, used)
	case r.Reason.Kind() == slots.ReasonNeverUsed && used:
		l.problem("%v released as never used after use", r.Permit)
	}
	if ok {
		delete(l.out, r.Permit.ID())
		if used {
			l.used--
		}
	}
	l.stats.Released[r.Reason.Kind()]++
	if err := r.Reason.Err(); err != nil {
		l.stats.Failures = append(l.stats.Failures, err)
	}
	l.mu.Unlock()
	a.inner.ReleaseSlot(r)
}

func (a auditSupplier) MaxSlots() int { return a.inner.MaxSlots() }
