package intake_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/weftrt/weft/intake"
	"github.com/weftrt/weft/slots"
)

// panicTask is a fakeTask whose HandBack panics (a buggy source).
type panicTask struct {
	fakeTask
	key       string
	handBacks atomic.Int32
}

func (p *panicTask) Key() string { return p.key }

func (p *panicTask) HandBack(context.Context) error {
	p.handBacks.Add(1)
	panic("source HandBack failed")
}

// twoTaskSource answers its first poll with x, its second with y, then
// waits for its context.
type twoTaskSource struct {
	tasks []intake.Task
	polls atomic.Int32
}

func (s *twoTaskSource) Poll(ctx context.Context, _ int) ([]intake.Task, error) {
	if i := int(s.polls.Add(1)) - 1; i < len(s.tasks) {
		return s.tasks[i : i+1], nil
	}
	<-ctx.Done()
	return nil, ctx.Err()
}

// A source whose settlement panics (here HandBack, for a task whose turn
// in its key's line comes while the worker is paused) is a fault like a
// supplier's panic: it must be reported, and the task's slot and record
// released, not leave Shutdown waiting forever with a slot held.
func TestSourceSettlementPanicHangsNothing(t *testing.T) {
	var acked counter
	x := &keyedFake{fakeTask: fakeTask{id: "x", deliveries: 1, acked: &acked}, key: "k"}
	y := &panicTask{fakeTask: fakeTask{id: "y", deliveries: 1}, key: "k"}
	started, release := make(chan struct{}), make(chan struct{})
	w, err := intake.New(intake.Config{
		Source: &twoTaskSource{tasks: []intake.Task{x, y}}, Supplier: slots.NewFixed(2), MaxBatch: 1, MaxPollers: 1,
		OnError: func(err error) { t.Logf("worker: %v", err) },
		Handler: func(_ context.Context, task intake.Task) error {
			if task.ID() == "x" {
				close(started)
				<-release
			}
			return nil
		},
	})
	require.NoError(t, err)
	<-started
	eventually(t, 10*time.Second, func() bool { return w.Stats().Received == 2 }, "y waiting in its line behind x")
	w.Pause()
	close(release)
	eventually(t, 10*time.Second, func() bool { return y.handBacks.Load() == 1 }, "y handed back")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err = w.Shutdown(ctx)
	require.NoError(t, err, "Shutdown hung (slots %+v)", w.Stats().Slots)
	require.True(t, slotsIdle(w), "slots %+v", w.Stats().Slots)
	require.EqualValues(t, 1, acked.Load())
}
