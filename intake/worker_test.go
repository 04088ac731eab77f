package intake_test

import (
	"context"
	"errors"
	"math"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/weftrt/weft/intake"
	"github.com/weftrt/weft/slots"
)

func TestEveryTaskRunsAndIsAcked(t *testing.T) {
	const n = 500
	q := intake.NewMemQueue(intake.MemQueueConfig{PollWait: 5 * time.Millisecond})
	putN(q, n)
	var mu sync.Mutex
	seen := map[string]int{}
	w := newWorker(t, intake.Config{
		Source:   q,
		Supplier: slots.NewFixed(4),
		Handler: func(_ context.Context, task intake.Task) error {
			mu.Lock()
			seen[string(task.Payload())]++
			mu.Unlock()
			return nil
		},
	})
	eventually(t, 10*time.Second, func() bool { return w.Stats().Acked == n }, "acked %d of %d", w.Stats().Acked, n)
	require.NoError(t, w.Shutdown(context.Background()))

	require.Len(t, seen, n)
	for p, k := range seen {
		require.Equal(t, 1, k, "task %s ran %d times", p, k)
	}
	s := w.Stats()
	require.Equal(t, 0, q.Len())
	require.EqualValues(t, n, s.Started)
	require.EqualValues(t, n, s.Received)
	require.Zero(t, s.Failed+s.Nacked+s.Redelivered+s.SettleErrors)
	require.Zero(t, s.Slots.InUse+s.Slots.Reserved)
	require.EqualValues(t, 0, s.Backlog)
}

// TestConfigIsChecked: every refusal wraps ErrConfig and names the field,
// the value given and what is allowed.
func TestConfigIsChecked(t *testing.T) {
	h := func(context.Context, intake.Task) error { return nil }
	for name, c := range map[string]struct {
		cfg  intake.Config
		want []string
	}{
		"no handler":         {intake.Config{}, []string{"Handler is nil", "want the function that runs each task"}},
		"max below min":      {intake.Config{Handler: h, MinPollers: 3, MaxPollers: 2}, []string{"MaxPollers 2 below MinPollers 3", "want MaxPollers >= MinPollers"}},
		"negative batch":     {intake.Config{Handler: h, MaxBatch: -1}, []string{"MaxBatch -1", "want >= 0"}},
		"negative max deliv": {intake.Config{Handler: h, MaxDeliveries: -1}, []string{"MaxDeliveries -1", "want >= 0"}},
		"negative pollers":   {intake.Config{Handler: h, MaxPollers: -3}, []string{"MaxPollers -3", "want >= 0"}},
		"batch over limit":   {intake.Config{Handler: h, MaxBatch: intake.MaxBatchLimit + 1}, []string{"MaxBatch 65537", "want at most MaxBatchLimit (65536)"}},
		"negative settle":    {intake.Config{Handler: h, SettleTimeout: -time.Second}, []string{"SettleTimeout -1s", "want >= 0"}},
	} {
		_, err := intake.New(c.cfg)
		require.ErrorIs(t, err, intake.ErrConfig, name)
		require.ErrorContains(t, err, "weft/intake: invalid config: ", name)
		for _, w := range c.want {
			require.ErrorContains(t, err, w, name)
		}
	}
}

// TestConfigRefusesValuesThatCannotBeRight: values that were taken
// silently (a negative timeout turned into the default) or failed only
// when the first poll ran (a batch too large to allocate) are refused by
// New, with the field and the value in the error.
func TestConfigRefusesValuesThatCannotBeRight(t *testing.T) {
	h := func(context.Context, intake.Task) error { return nil }
	for want, cfg := range map[string]intake.Config{
		"SettleTimeout -1s":   {Handler: h, SettleTimeout: -time.Second},
		"MaxBatch 65537":      {Handler: h, MaxBatch: intake.MaxBatchLimit + 1},
		"MaxBatch 2147483647": {Handler: h, MaxBatch: math.MaxInt32, Supplier: slots.Unlimited{}},
		"MaxSettling -2":      {Handler: h, MaxSettling: -2},
		"MinPollers -1":       {Handler: h, MinPollers: -1},
	} {
		_, err := intake.New(cfg)
		require.ErrorIs(t, err, intake.ErrConfig, want)
		require.ErrorContains(t, err, want)
	}
}

// With only a handler, the worker polls a MemQueue of its own on the
// default pool, within GOMAXPROCS slots.
func TestDefaults(t *testing.T) {
	done := make(chan string, 1)
	w := newWorker(t, intake.Config{
		Handler: func(_ context.Context, task intake.Task) error {
			done <- string(task.Payload())
			return nil
		},
	})
	q, ok := w.Source().(*intake.MemQueue)
	require.True(t, ok, "default source is %T", w.Source())
	q.Put([]byte("hello"))
	require.Equal(t, "hello", <-done)
	require.Positive(t, w.Stats().Slots.Max)
}

// A supplier that is already a Pauseable is used as it is: pausing it
// pauses the worker.
func TestOwnPauseableIsUsed(t *testing.T) {
	ps := slots.NewPauseable(slots.NewFixed(2))
	w := newWorker(t, intake.Config{
		Supplier: ps,
		Handler:  func(context.Context, intake.Task) error { return nil },
	})
	ps.Pause(slots.PauseOptions{})
	require.True(t, w.Paused())
	w.Resume()
	require.False(t, ps.Paused())
}

// Backlog per free slot: what waits, over the slots not running a task.
func TestBacklogPerFreeSlot(t *testing.T) {
	q := intake.NewMemQueue(intake.MemQueueConfig{PollWait: time.Millisecond})
	release := make(chan struct{})
	w := newWorker(t, intake.Config{
		Source:   q,
		Supplier: slots.NewFixed(4),
		Handler: func(context.Context, intake.Task) error {
			<-release
			return nil
		},
	})
	defer close(release)
	putN(q, 3)
	eventually(t, 5*time.Second, func() bool { return w.Stats().Started == 3 }, "3 tasks started")
	putN(q, 10) // one slot free, so at most 1 of them leased
	eventually(t, 5*time.Second, func() bool { return w.Stats().Slots.InUse == 4 }, "4 in use")
	s := w.Stats()
	require.EqualValues(t, 9, s.Backlog)
	require.True(t, math.IsInf(s.BacklogPerFreeSlot, 1), "no free slot: unbounded, got %v", s.BacklogPerFreeSlot)
}

// A source that breaks its contract by returning more tasks than asked
// does not get them run without slots: the extras go back.
func TestExtraTasksAreReturned(t *testing.T) {
	src := &greedySource{}
	ran := make(chan string, 16)
	w := newWorker(t, intake.Config{
		Source:   src,
		Supplier: slots.NewFixed(1),
		Handler: func(_ context.Context, task intake.Task) error {
			ran <- task.ID()
			return nil
		},
		OnError: func(error) {},
	})
	<-ran
	require.NoError(t, w.Shutdown(context.Background()))
	require.Positive(t, w.Stats().HandedBack)
	require.Positive(t, src.nacked.Load())
}

// greedySource answers its first poll with three tasks, whatever it was
// asked for, and then nothing.
type greedySource struct {
	once   sync.Once
	nacked counter
}

func (g *greedySource) Poll(ctx context.Context, n int) ([]intake.Task, error) {
	var out []intake.Task
	g.once.Do(func() {
		for i := range 3 {
			out = append(out, &fakeTask{id: strconv.Itoa(i), deliveries: 1, nacked: &g.nacked})
		}
	})
	if out != nil {
		return out, nil
	}
	<-ctx.Done()
	return nil, ctx.Err()
}

var errNotFake = errors.New("fake task settled twice")
