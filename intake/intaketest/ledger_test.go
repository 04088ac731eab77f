package intaketest_test

import (
	"context"
	"testing"

	"github.com/weftrt/weft/intake"
	"github.com/weftrt/weft/intake/intaketest"
	"github.com/weftrt/weft/slots"
)

// The ledger finds a poll that asks for more tasks than the slots free.
func TestLedgerFindsOverAskingPoll(t *testing.T) {
	l := intaketest.NewLedger(2)
	tr := slots.NewTracker(l.Supplier(slots.NewFixed(2)))
	src := l.Source(intake.NewMemQueue(intake.MemQueueConfig{}))
	p, err := tr.Reserve(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	if err := tr.MarkUsed(p, slots.TaskInfo{}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, _ = src.Poll(ctx, 2) // 1 in use + 2 asked > 2
	if len(l.Problems()) != 1 {
		t.Fatalf("problems %q, want one", l.Problems())
	}
	if err := tr.Release(p, slots.TaskComplete()); err != nil {
		t.Fatal(err)
	}
	if _, ok := src.(intake.Backlogger); !ok {
		t.Fatal("the audited MemQueue lost its Backlog")
	}
	if s := l.Stats(); s.Out != 0 || s.Grants != 1 || s.Released[slots.ReasonComplete] != 1 {
		t.Fatalf("stats %+v", s)
	}
}
