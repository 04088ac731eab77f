package weftjs_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/weftrt/weft/intake"
	"github.com/weftrt/weft/intake/intaketest"
	weftjs "github.com/weftrt/weft/jetstream"
	"github.com/weftrt/weft/slots"
)

// A rolling deploy: six restarts in a row, each of a worker that polled
// every task and started none (it was paused as the poll came back), so
// that each hands all of them back. With MaxDeliver 5 and MaxDeliveries 4,
// as the README suggests, hand-backs that counted as deliveries would
// have the fifth worker terminate healthy tasks that never ran. They do
// not count: the last worker runs every task on its first counted
// delivery, and nothing is terminated or dead-lettered.
func TestHandBacksDoNotCountAsDeliveries(t *testing.T) {
	const n, rounds, maxDeliver = 8, 6, 5
	srv := startServer(t)
	js := connect(t, srv.url())
	cfg := weftjs.Config{AckWait: time.Minute, PollWait: 100 * time.Millisecond, MaxDeliver: maxDeliver}
	src := newSource(t, js, cfg)
	defer src.Close()
	publishN(t, js, src.Subject(), 0, n)

	for round := range rounds {
		l := intaketest.NewLedger(n)
		sup := slots.NewPauseable(l.Supplier(slots.NewFixed(n)))
		w, err := intake.New(intake.Config{
			Source:        &pauseOnPoll{Source: l.Source(src), sup: sup},
			Supplier:      sup,
			MaxDeliveries: maxDeliver - 1,
			OnError:       func(error) {},
			Handler: func(context.Context, intake.Task) error {
				t.Errorf("round %d: a task started in a paused worker", round)
				return nil
			},
		})
		require.NoError(t, err)
		eventually(t, 10*time.Second, func() bool { return w.Stats().HandedBack == n }, "round %d: every task handed back", round)
		require.NoError(t, w.Shutdown(context.Background()))
		s := w.Stats()
		require.EqualValues(t, n, s.HandedBack, "round %d", round)
		require.Zero(t, s.Terminated, "round %d: a task that never ran was terminated", round)
		require.Empty(t, l.Problems())
		require.EqualValues(t, n, streamMsgs(t, js, src.Config().Stream), "round %d", round)
	}

	var mu sync.Mutex
	seen := map[string]int{}
	w := newWorker(t, intake.Config{
		Source:        src,
		Supplier:      slots.NewFixed(n),
		MaxDeliveries: maxDeliver - 1,
		Handler: func(_ context.Context, task intake.Task) error {
			mu.Lock()
			defer mu.Unlock()
			seen[string(task.Payload())] = task.Deliveries()
			return nil
		},
	})
	eventually(t, 10*time.Second, func() bool { return w.Stats().Acked == n }, "every task acked after the restarts")
	require.Zero(t, w.Stats().Terminated)
	for p, d := range seen {
		require.Equal(t, 1, d, "task %s: its hand-backs counted as deliveries", p)
	}
	require.Len(t, seen, n)
	require.Zero(t, streamMsgs(t, js, src.Config().Stream))
}

// pauseOnPoll pauses sup directly (not through the worker, so the poll in
// flight goes on) as a poll comes back with tasks: the worker hands them
// back unrun.
type pauseOnPoll struct {
	intake.Source
	sup *slots.Pauseable
}

func (p *pauseOnPoll) Poll(ctx context.Context, n int) ([]intake.Task, error) {
	tasks, err := p.Source.Poll(ctx, n)
	if len(tasks) > 0 {
		p.sup.Pause(slots.PauseOptions{})
	}
	return tasks, err
}
