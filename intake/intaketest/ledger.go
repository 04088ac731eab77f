package intaketest

import (
	"fmt"
	"sync"

	"github.com/weftrt/weft/intake"
	"github.com/weftrt/weft/slots"
)

// Ledger sees every call of an audited supplier and source under one
// lock, so that both sides are seen at the same instant, and checks:
//
//   - slots out (reserved or used) never exceed Max;
//   - the tasks asked for by polls in flight plus the slots in use never
//     exceed Max: no poll asks for a task it has no free slot for;
//   - no poll returns more tasks than it asked for;
//   - every permit is granted once and released once, NeverUsed only if
//     it was never marked used, with the Used flag that matches.
//
// Its methods are safe for concurrent use.
type Ledger struct {
	max int

	mu       sync.Mutex
	out      map[uint64]bool // permits out: whether marked used
	used     int             // of them, marked
	asked    int             // tasks asked for by polls in flight
	stats    Stats
	problems []string
}

// Stats is what a Ledger counted.
type Stats struct {
	Out       int                      // permits out now
	PeakOut   int                      // most permits out at once
	PeakAsked int                      // most tasks asked for by polls in flight at once
	Grants    int                      // permits granted
	Polls     int                      // polls begun
	Released  map[slots.ReasonKind]int // releases by reason
	Failures  []error                  // the errors of TaskFailed releases
}

// NewLedger returns a ledger for a supplier of max slots.
func NewLedger(max int) *Ledger {
	return &Ledger{max: max, out: map[uint64]bool{}, stats: Stats{Released: map[slots.ReasonKind]int{}}}
}

// Problems returns the breaches found (the first 20).
func (l *Ledger) Problems() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.problems...)
}

// Stats returns a copy of the counts.
func (l *Ledger) Stats() Stats {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := l.stats
	s.Out = len(l.out)
	s.Released = make(map[slots.ReasonKind]int, len(l.stats.Released))
	for k, v := range l.stats.Released {
		s.Released[k] = v
	}
	s.Failures = append([]error(nil), l.stats.Failures...)
	return s
}

func (l *Ledger) problem(format string, args ...any) {
	if len(l.problems) < 20 {
		l.problems = append(l.problems, fmt.Sprintf(format, args...))
	}
}

// check tests the bounds; called with mu held after every change.
func (l *Ledger) check(where string) {
	if len(l.out) > l.max {
		l.problem("%s: %d slots out, max %d", where, len(l.out), l.max)
	}
	if l.used+l.asked > l.max {
		l.problem("%s: %d in use + %d asked for > max %d", where, l.used, l.asked, l.max)
	}
}

// Supplier returns inner audited by l.
func (l *Ledger) Supplier(inner slots.Supplier) slots.Supplier {
	return auditSupplier{inner: inner, l: l}
}

// Source returns inner audited by l. It is a Backlogger and a Leaser if
// inner is.
func (l *Ledger) Source(inner intake.Source) intake.Source {
	a := auditSource{inner: inner, l: l}
	lease, leaser := inner.(intake.Leaser)
	backlog, backlogger := inner.(intake.Backlogger)
	switch {
	case leaser && backlogger:
		return struct {
			auditSource
			intake.Leaser
			intake.Backlogger
		}{a, lease, backlog}
	case leaser:
		return struct {
			auditSource
			intake.Leaser
		}{a, lease}
	case backlogger:
		return struct {
			auditSource
			intake.Backlogger
		}{a, backlog}
	}
	return a
}
