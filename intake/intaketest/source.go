package intaketest

import (
	"context"

	"github.com/weftrt/weft/intake"
)

// auditSource passes polls to inner and shows them to the ledger.
type auditSource struct {
	inner intake.Source
	l     *Ledger
}

func (a auditSource) Poll(ctx context.Context, n int) ([]intake.Task, error) {
	l := a.l
	l.mu.Lock()
	l.asked += n
	l.stats.Polls++
	l.stats.PeakAsked = max(l.stats.PeakAsked, l.asked)
	l.check("poll")
	l.mu.Unlock()
	tasks, err := a.inner.Poll(ctx, n)
	l.mu.Lock()
	l.asked -= n
	if len(tasks) > n {
		l.problem("a poll for %d returned %d", n, len(tasks))
	}
	l.mu.Unlock()
	return tasks, err
}
