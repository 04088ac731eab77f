package intake_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/weftrt/weft/intake"
	"github.com/weftrt/weft/slots"
)

// instantSource answers every poll at once: with the tasks queued by put,
// or empty. After valve polls it stops answering and waits for the poll's
// context, so a poller that spins on it blocks instead of burning a core
// forever: the test then sees the spin as a count far over its bound.
type instantSource struct {
	valve int64
	polls atomic.Int64

	mu    sync.Mutex
	tasks []intake.Task
}

func (s *instantSource) Poll(ctx context.Context, n int) ([]intake.Task, error) {
	if s.polls.Add(1) > s.valve {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	k := min(n, len(s.tasks))
	out := s.tasks[:k:k]
	s.tasks = s.tasks[k:]
	return out, nil
}

func (s *instantSource) put(t intake.Task) {
	s.mu.Lock()
	s.tasks = append(s.tasks, t)
	s.mu.Unlock()
}

// TestEmptyPollsBackOff: a source that answers empty at once is polled a
// bounded number of times while the (fake) clock advances, the poller
// holds no slot while it waits, a task that arrives after a run of empty
// polls is still picked up, and that task starts the backoff over.
func TestEmptyPollsBackOff(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := &instantSource{valve: 10_000}
		ran := make(chan string, 1)
		w := newWorker(t, intake.Config{
			Source:     src,
			Supplier:   slots.NewFixed(2),
			MaxPollers: 1,
			// The default, spelled out because the bounds below follow
			// from it.
			EmptyPollBackoff: intake.Exponential(time.Millisecond, 100*time.Millisecond),
			Handler: func(_ context.Context, task intake.Task) error {
				ran <- task.ID()
				return nil
			},
		})

		// Pauses are drawn from [d/2, d] for d = 1, 2, 4, ... 64, then
		// 100ms: within a second there is room for 1 + 7 + 19 polls at
		// most and 1 + 7 + 8 at least.
		time.Sleep(time.Second)
		polls := src.polls.Load()
		require.LessOrEqual(t, polls, int64(27), "an at-once empty source is polled in a spin")
		require.GreaterOrEqual(t, polls, int64(16), "the poller stopped polling")
		s := w.Stats()
		require.EqualValues(t, polls, s.EmptyPolls)
		require.EqualValues(t, polls, s.EmptyPollPauses)

		synctest.Wait() // the poller is in its pause
		s = w.Stats()
		require.Zero(t, s.Slots.Reserved+s.Slots.InUse, "a pausing poller holds a slot")

		var acked counter
		src.put(&fakeTask{id: "late", deliveries: 1, acked: &acked})
		require.Equal(t, "late", <-ran) // waits out the pause on the fake clock
		synctest.Wait()
		require.EqualValues(t, 1, acked.Load())

		// Started over: pauses of at most 1, 2 and 4ms, so 3 more polls
		// within 7ms, where the run before would have paused 50ms or more.
		before := src.polls.Load()
		time.Sleep(7 * time.Millisecond)
		require.GreaterOrEqual(t, src.polls.Load()-before, int64(3), "the backoff was not reset by a task")
	})
}

// TestEmptyPollBackoffOff: Exponential(0, 0) turns the pause off, and a
// source that long-polls for longer than the backoff is not paused after.
func TestEmptyPollBackoffOff(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := &instantSource{valve: 100}
		w := newWorker(t, intake.Config{
			Source:           src,
			Supplier:         slots.NewFixed(1),
			MaxPollers:       1,
			EmptyPollBackoff: intake.Exponential(0, 0),
			Handler:          func(context.Context, intake.Task) error { return nil },
		})
		synctest.Wait() // the poller ran into the valve without a pause
		require.EqualValues(t, 101, src.polls.Load())
		require.Zero(t, w.Stats().EmptyPollPauses)
	})
	synctest.Test(t, func(t *testing.T) {
		q := intake.NewMemQueue(intake.MemQueueConfig{PollWait: 200 * time.Millisecond})
		w := newWorker(t, intake.Config{
			Source:     q,
			Supplier:   slots.NewFixed(1),
			MaxPollers: 1,
			Handler:    func(context.Context, intake.Task) error { return nil },
		})
		time.Sleep(time.Second + time.Millisecond)
		s := w.Stats()
		require.EqualValues(t, 5, s.EmptyPolls, "polls of 200ms each in a second")
		require.Zero(t, s.EmptyPollPauses, "a long poll paused after")
	})
}
