package intake_test

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/weftrt/weft/intake"
)

// scriptedSource answers its polls from a script: the i-th poll runs
// polls[i], and a poll past the script waits for its context.
type scriptedSource struct {
	mu    sync.Mutex
	n     int
	polls []func(context.Context) ([]intake.Task, error)
}

func (s *scriptedSource) Poll(ctx context.Context, _ int) ([]intake.Task, error) {
	s.mu.Lock()
	i := s.n
	s.n++
	s.mu.Unlock()
	if i < len(s.polls) && s.polls[i] != nil {
		return s.polls[i](ctx)
	}
	<-ctx.Done()
	return nil, ctx.Err()
}

// A poll that begins while a keyed task A is out being handed back may be
// answered with B, the next task of A's key, before the source has A
// again (a JetStream pull sent before A's Nak is one). Once A is back and
// its line gone, B must not start a line of its own and run: it goes
// back too, after A, so that the source delivers A first. Here the worker
// is paused while H, the key's first task, runs and A waits behind it;
// A goes back when H ends, and its hand-back resumes the worker and lets
// the next poll begin; that poll answers B only once A's line is gone.
func TestKeyFenceHoldsBackOlderPolls(t *testing.T) {
	log := &eventLog{}
	polling := make(chan struct{}) // the poll the Pause ends has begun
	polled := make(chan struct{})  // the poll that brings B has begun
	var w *intake.Worker
	h := &lineTask{id: "H", key: "k", log: log}
	a := &lineTask{id: "A", key: "k", log: log, onNack: func() {
		w.Resume()
		select {
		case <-polled:
		case <-t.Context().Done(): // the test failed: let its cleanup close w
		}
	}}
	b := &lineTask{id: "B", key: "k", log: log}
	src := &scriptedSource{polls: []func(context.Context) ([]intake.Task, error){
		func(context.Context) ([]intake.Task, error) { return []intake.Task{h, a}, nil },
		func(ctx context.Context) ([]intake.Task, error) { // ended by the Pause
			close(polling)
			<-ctx.Done()
			return nil, ctx.Err()
		},
		func(ctx context.Context) ([]intake.Task, error) {
			close(polled)
			// A condition, not a clock: A's line is gone once its
			// hand-back has returned and the worker has moved on.
			for intake.KeyLines(w) > 0 {
				if ctx.Err() != nil {
					return nil, errors.New("A's line never ended")
				}
				runtime.Gosched()
			}
			return []intake.Task{b}, nil
		},
	}}
	// The pause comes once A waits behind H and the second poll is out:
	// a pause before either hands A back from the poller, whose next
	// poll A's Nack would wait for.
	ev := pauseWhileHRuns(t, src, log, &w, func() bool {
		select {
		case <-polling:
			return intake.KeyLineLen(w, "k") == 2
		default:
			return false
		}
	})
	require.Equal(t, []string{"run H", "returned A", "returned B"}, ev,
		"B, polled before A was back, ran ahead of it")
}
