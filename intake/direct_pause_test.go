package intake_test

import (
	"context"
	"testing"

	"github.com/weftrt/weft/intake"
	"github.com/weftrt/weft/slots"
)

// directPausingSource answers its first poll with its tasks, pausing the
// worker's Pauseable supplier itself (not Worker.Pause) while the poll is
// out: as another user of a shared Pauseable would.
type directPausingSource struct {
	p     *slots.Pauseable
	tasks []intake.Task
	done  bool
}

func (s *directPausingSource) Poll(ctx context.Context, n int) ([]intake.Task, error) {
	if s.done { // only one poller
		<-ctx.Done()
		return nil, ctx.Err()
	}
	s.done = true
	s.p.Pause(slots.PauseOptions{})
	return s.tasks, nil
}

// The package documents that pausing the worker's Pauseable directly has
// Worker.Pause's effect, but for the polls in flight. A and B of one key
// come back from one poll while the supplier is paused so: A is handed
// back, and a Resume of the supplier right then (while A's return is on
// its way) must not let B run before A, which the source delivers again.
// Before, only Worker.Pause ended the poll's epoch, so B ran.
func TestDirectPauseBatchHandBackKeepsKeyOrder(t *testing.T) {
	log := &eventLog{}
	p := slots.NewPauseable(slots.NewFixed(4))
	a := &lineTask{id: "A", key: "k", log: log, onNack: p.Resume}
	b := &lineTask{id: "B", key: "k", log: log}
	src := &directPausingSource{p: p, tasks: []intake.Task{a, b}}
	w := newWorker(t, intake.Config{
		Source:     src,
		Supplier:   p,
		MaxBatch:   4,
		MinPollers: 1, MaxPollers: 1,
		Handler: func(_ context.Context, task intake.Task) error {
			log.add("run " + task.ID())
			return nil
		},
	})
	requireBothReturned(t, w, log, "B ran while A, before it, was handed back")
}

// hookKeyTask is a lineTask whose Key runs a hook first: the worker reads
// a task's Key as it takes the task in, after it has dispatched the
// tasks before it in the poll, so the hook runs between two dispatches.
type hookKeyTask struct {
	lineTask
	onKey func()
}

func (h *hookKeyTask) Key() string {
	h.onKey()
	return h.key
}

// A and B of one key come back from one poll, A waiting in its key's
// line behind X, which runs. Before B is taken in, the worker is paused
// (directly, through its Pauseable, or with Worker.Pause), X ends, A's
// turn comes while the worker is paused and A goes back unrun, and the
// worker resumes. B must not run before A, which the source delivers
// again: A's return ends its poll's epoch, whoever paused. Before, a
// direct pause left the epoch live and B ran.
func TestPauseBetweenDispatchesKeepsKeyOrder(t *testing.T) {
	for _, direct := range []bool{true, false} {
		name := "Worker.Pause"
		if direct {
			name = "Pauseable.Pause"
		}
		t.Run(name, func(t *testing.T) {
			log := &eventLog{}
			p := slots.NewPauseable(slots.NewFixed(4))
			gate, running := make(chan struct{}), make(chan struct{})
			var w *intake.Worker
			made := make(chan struct{}) // w is set
			pause, resume := func() { <-made; w.Pause() }, func() { w.Resume() }
			if direct {
				pause, resume = func() { p.Pause(slots.PauseOptions{}) }, p.Resume
			}
			aBack := make(chan struct{})
			x := &lineTask{id: "X", key: "k", log: &eventLog{}}
			a := &lineTask{id: "A", key: "k", log: log, onNack: func() { close(aBack) }}
			b := &hookKeyTask{lineTask: lineTask{id: "B", key: "k", log: log}, onKey: func() {
				<-running
				pause()
				close(gate) // X ends; A's turn comes in the pause
				<-aBack
				resume()
			}}
			src := &instantSource{valve: 1 << 40}
			src.put(x)
			src.put(a)
			src.put(b)
			w = newWorker(t, intake.Config{
				Source:     src,
				Supplier:   p,
				MaxBatch:   4,
				MinPollers: 1, MaxPollers: 1,
				Handler: func(_ context.Context, task intake.Task) error {
					if task.ID() == "X" {
						close(running)
						<-gate
						return nil
					}
					log.add("run " + task.ID())
					return nil
				},
			})
			close(made)
			requireBothReturned(t, w, log, "B ran while A, before it, was handed back")
		})
	}
}
