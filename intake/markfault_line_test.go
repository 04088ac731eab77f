package intake_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/weftrt/weft/intake"
	"github.com/weftrt/weft/scheduler"
	"github.com/weftrt/weft/slots"
)

// oneShotSource answers its first poll with its tasks, and later polls
// with nothing until their context ends (one poller).
type oneShotSource struct {
	tasks []intake.Task
	done  bool
}

func (s *oneShotSource) Poll(ctx context.Context, n int) ([]intake.Task, error) {
	if s.done {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	s.done = true
	return s.tasks, nil
}

// A and B of one key come back from one poll; B waits in the key's line
// behind A. The supplier fails marking A's slot (a panic), so A goes back unrun and its
// source delivers it again: B must go back too, not run before it. Before,
// the worker went on to B as if A had run.
func TestMarkFaultHandsBackTheKeysLine(t *testing.T) {
	for name, sup := range map[string]func() (slots.Supplier, func()){
		"panic": func() (slots.Supplier, func()) {
			s := &panickySupplier{Supplier: slots.NewFixed(4)}
			return s, func() { s.markArmed.Store(true) }
		},
	} {
		t.Run(name, func(t *testing.T) {
			log := &eventLog{}
			supplier, arm := sup()
			arm()
			a := &lineTask{id: "A", key: "k", log: log}
			b := &lineTask{id: "B", key: "k", log: log}
			pool, err := scheduler.New(scheduler.WithWorkers(2), scheduler.WithPanicHandler(func(*scheduler.Panic) {}))
			require.NoError(t, err)
			t.Cleanup(pool.Close)
			w := newWorker(t, intake.Config{
				Source:     &oneShotSource{tasks: []intake.Task{a, b}},
				Supplier:   supplier,
				MaxBatch:   4,
				MinPollers: 1, MaxPollers: 1,
				OnError: func(error) {},
				Handler: func(_ context.Context, task intake.Task) error {
					log.add("run " + task.ID())
					return nil
				},
			})
			requireBothReturned(t, w, log, "B ran while A, before it, went back unrun")
		})
	}
}
