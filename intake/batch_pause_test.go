package intake_test

import (
	"context"
	"testing"

	"github.com/weftrt/weft/intake"
	"github.com/weftrt/weft/slots"
)

// pausingSource answers its first poll with its tasks, but pauses the
// worker while the poll is out (a Pause that lands while the source
// answers).
type pausingSource struct {
	w     **intake.Worker
	start chan struct{} // closed once *w is set
	tasks []intake.Task
	done  bool
}

func (s *pausingSource) Poll(ctx context.Context, n int) ([]intake.Task, error) {
	if s.done { // only one poller
		<-ctx.Done()
		return nil, ctx.Err()
	}
	s.done = true
	<-s.start
	(*s.w).Pause()
	return s.tasks, nil
}

// A and B of one key come back from one poll while the worker is paused:
// A is handed back; a Resume that comes right then (while A's return is
// on its way) must not let B run before A, which the source delivers
// again.
func TestResumeDuringBatchHandBackKeepsKeyOrder(t *testing.T) {
	log := &eventLog{}
	var w *intake.Worker
	a := &lineTask{id: "A", key: "k", log: log, onNack: func() { w.Resume() }}
	b := &lineTask{id: "B", key: "k", log: log}
	src := &pausingSource{w: &w, start: make(chan struct{}), tasks: []intake.Task{a, b}}
	w = newWorker(t, intake.Config{
		Source:     src,
		Supplier:   slots.NewFixed(4),
		MaxBatch:   4,
		MinPollers: 1, MaxPollers: 1,
		Handler: func(_ context.Context, task intake.Task) error {
			log.add("run " + task.ID())
			return nil
		},
	})
	close(src.start)
	requireBothReturned(t, w, log, "B ran while A, before it, was handed back")
}
