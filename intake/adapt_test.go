package intake_test

import (
	"context"
	"testing"
	"time"

	"github.com/weftrt/weft/intake"
	"github.com/weftrt/weft/slots"
)

// With a backlog and free slots, polls come back full and the pollers grow
// to the ceiling; once the queue is drained, polls come back empty and
// they shrink to the floor.
func TestPollersFollowEmptyPolls(t *testing.T) {
	q := intake.NewMemQueue(intake.MemQueueConfig{PollWait: 2 * time.Millisecond})
	putN(q, 4000)
	w := newWorker(t, intake.Config{
		Source:     q,
		Supplier:   slots.NewFixed(32),
		MinPollers: 1,
		MaxPollers: 4,
		MaxBatch:   2, // small polls leave slots free for more pollers
		Handler: func(context.Context, intake.Task) error {
			time.Sleep(100 * time.Microsecond)
			return nil
		},
	})
	peak := 0
	eventually(t, 20*time.Second, func() bool {
		peak = max(peak, w.Stats().Pollers)
		return peak == 4
	}, "pollers grew to 4 (peak %d)", peak)
	eventually(t, 60*time.Second, func() bool { return q.Len() == 0 }, "queue drained")
	eventually(t, 10*time.Second, func() bool {
		s := w.Stats()
		return s.Pollers == 1 && s.PollerTarget == 1
	}, "pollers shrank to 1 (%d)", w.Stats().Pollers)
	s := w.Stats()
	if s.EmptyPolls == 0 || s.PollTime <= 0 {
		t.Fatalf("empty polls %d, poll time %v", s.EmptyPolls, s.PollTime)
	}
}
