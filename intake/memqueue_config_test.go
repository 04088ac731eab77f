package intake_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/weftrt/weft/intake"
)

// NewMemQueue refuses a negative Lease or PollWait, which no queue can
// mean, with a panic (the settings are fixed in code, as a make's size
// is): the value is an error wrapping ErrConfig that names the field and
// the value. Before, each silently became its default.
func TestNewMemQueueRefusesNegativeConfig(t *testing.T) {
	cases := []struct {
		cfg  intake.MemQueueConfig
		want string
	}{
		{intake.MemQueueConfig{Lease: -time.Second},
			"weft/intake: invalid config: MemQueueConfig.Lease -1s: want >= 0 (0: the default, 30s)"},
		{intake.MemQueueConfig{Lease: -1},
			"weft/intake: invalid config: MemQueueConfig.Lease -1ns: want >= 0 (0: the default, 30s)"},
		{intake.MemQueueConfig{PollWait: -time.Millisecond},
			"weft/intake: invalid config: MemQueueConfig.PollWait -1ms: want >= 0 (0: the default, 1s)"},
		{intake.MemQueueConfig{Lease: time.Minute, PollWait: -time.Hour},
			"weft/intake: invalid config: MemQueueConfig.PollWait -1h0m0s: want >= 0 (0: the default, 1s)"},
	}
	for _, c := range cases {
		v := memQueuePanic(func() { intake.NewMemQueue(c.cfg) })
		require.NotNil(t, v, "NewMemQueue(%+v) did not panic", c.cfg)
		err, ok := v.(error)
		require.True(t, ok, "NewMemQueue(%+v) panicked with %T %v, want an error", c.cfg, v, v)
		require.ErrorIs(t, err, intake.ErrConfig)
		require.Equal(t, c.want, err.Error())
	}
}

// Zero and positive settings are accepted; zero is the default.
func TestNewMemQueueAcceptsZeroAndPositiveConfig(t *testing.T) {
	for _, c := range []struct {
		cfg   intake.MemQueueConfig
		lease time.Duration
	}{
		{intake.MemQueueConfig{}, 30 * time.Second},
		{intake.MemQueueConfig{PollWait: time.Nanosecond}, 30 * time.Second},
		{intake.MemQueueConfig{Lease: time.Nanosecond}, time.Nanosecond},
		{intake.MemQueueConfig{Lease: time.Minute, PollWait: time.Hour}, time.Minute},
	} {
		var q *intake.MemQueue
		v := memQueuePanic(func() { q = intake.NewMemQueue(c.cfg) })
		require.Nil(t, v, "NewMemQueue(%+v)", c.cfg)
		require.Equal(t, c.lease, q.Lease(), "NewMemQueue(%+v).Lease()", c.cfg)
	}
}

// A MemQueue declared as a value is an empty queue with the default
// settings, whichever exported method is called first. Before, Put and
// PutKey panicked ("assignment to entry in nil map"), Lease returned 0
// and Poll did not wait at all.
func TestMemQueueZeroValueFirstUse(t *testing.T) {
	ctx := context.Background()
	first := map[string]func(t *testing.T, q *intake.MemQueue){
		"Put": func(t *testing.T, q *intake.MemQueue) {
			require.Equal(t, "1", q.Put([]byte("a")))
			require.Equal(t, 1, q.Len())
			require.Equal(t, int64(1), q.Backlog())
		},
		"PutKey": func(t *testing.T, q *intake.MemQueue) {
			require.Equal(t, "1", q.PutKey("k", []byte("a")))
			require.Equal(t, "2", q.PutKey("k", []byte("b")))
			require.Equal(t, 2, q.Len())
			require.Equal(t, int64(2), q.Backlog())
		},
		"Poll": func(t *testing.T, q *intake.MemQueue) {
			start := time.Now()
			tasks, err := q.Poll(ctx, 1)
			require.NoError(t, err)
			require.Empty(t, tasks)
			require.Equal(t, time.Second, time.Since(start), "an empty Poll waits the default PollWait")
		},
		"Lease": func(t *testing.T, q *intake.MemQueue) {
			require.Equal(t, 30*time.Second, q.Lease())
		},
		"Len": func(t *testing.T, q *intake.MemQueue) {
			require.Equal(t, 0, q.Len())
		},
		"Backlog": func(t *testing.T, q *intake.MemQueue) {
			require.Equal(t, int64(0), q.Backlog())
		},
		"Terminated": func(t *testing.T, q *intake.MemQueue) {
			require.Empty(t, q.Terminated())
		},
	}
	for name, use := range first {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var q intake.MemQueue
				v := memQueuePanic(func() { use(t, &q) })
				require.Nil(t, v, "%s on a zero MemQueue panicked", name)
				// Whatever came first, the queue then works in full.
				v = memQueuePanic(func() { memQueueRoundTrip(t, &q) })
				require.Nil(t, v, "a zero MemQueue panicked after %s", name)
			})
		})
	}
}

// memQueueRoundTrip puts and settles tasks through every settlement a
// MemQueue delivery offers, with the default lease and poll wait.
func memQueueRoundTrip(t *testing.T, q *intake.MemQueue) {
	t.Helper()
	ctx := context.Background()
	drain := func() []intake.Task {
		tasks, err := q.Poll(ctx, 100)
		require.NoError(t, err)
		return tasks
	}
	next := func() intake.Task { // polls until a task comes
		for {
			if tasks := drain(); len(tasks) > 0 {
				require.Len(t, tasks, 1)
				return tasks[0]
			}
		}
	}
	for q.Len() > 0 { // what the first use left
		for _, d := range drain() {
			require.NoError(t, d.Ack(ctx))
		}
	}
	require.Equal(t, 0, q.Len())

	ack := q.Put([]byte("ack"))
	nack := q.PutKey("k", []byte("nack"))
	q.PutKey("k", []byte("behind"))
	require.Equal(t, int64(3), q.Backlog())
	tasks := drain()
	require.Len(t, tasks, 2, "the key's second task waits behind its first")
	byID := map[string]intake.Task{tasks[0].ID(): tasks[0], tasks[1].ID(): tasks[1]}
	require.NoError(t, byID[ack].Ack(ctx))
	require.NoError(t, byID[nack].Nack(ctx, 5*time.Second))
	require.Equal(t, int64(2), q.Backlog(), "the nacked task, delayed, and the one behind it")

	start := time.Now()
	d := next() // waits out the delay
	require.Equal(t, 5*time.Second, time.Since(start))
	require.Equal(t, nack, d.ID())
	require.Equal(t, 2, d.Deliveries())
	require.NoError(t, d.(intake.HandBacker).HandBack(ctx))

	d = next()
	require.Equal(t, 2, d.Deliveries(), "a handed-back delivery does not count")
	time.Sleep(20 * time.Second) // synctest's clock: it advances when the bubble is idle, no wall time passes
	require.NoError(t, d.InProgress(ctx))
	start = time.Now()
	again := next() // waits out the lease, a default 30s from InProgress
	require.Equal(t, 30*time.Second, time.Since(start))
	require.Equal(t, nack, again.ID())
	require.ErrorIs(t, d.Ack(ctx), intake.ErrLeaseLost)
	require.NoError(t, again.Terminate(ctx, "poison"))

	last := next()
	require.Equal(t, []byte("behind"), last.Payload())
	require.NoError(t, last.Ack(ctx))
	require.Equal(t, 0, q.Len())
	require.Equal(t, int64(0), q.Backlog())
	dead := q.Terminated()
	require.Len(t, dead, 1)
	require.Equal(t, intake.Terminated{ID: nack, Payload: []byte("nack"), Deliveries: 3, Reason: "poison"}, dead[0])
}

// A Poll waiting on a zero MemQueue is woken by the first Put, which
// must find the channel the Poll waits on; and first uses that race
// each other make the queue once, not twice (run under -race).
func TestMemQueueZeroValueConcurrentFirstUse(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var q intake.MemQueue
		got := make(chan []intake.Task, 1)
		go func() {
			tasks, err := q.Poll(context.Background(), 1)
			if err != nil {
				panic(err)
			}
			got <- tasks
		}()
		synctest.Wait() // the Poll waits
		start := time.Now()
		id := q.Put([]byte("x"))
		tasks := <-got
		require.Len(t, tasks, 1)
		require.Equal(t, id, tasks[0].ID())
		require.Zero(t, time.Since(start), "woken by the Put, not by its PollWait")
		require.NoError(t, tasks[0].Ack(context.Background()))
	})

	synctest.Test(t, func(t *testing.T) {
		var q intake.MemQueue
		const putters = 8
		var wg sync.WaitGroup
		for i := range putters {
			wg.Go(func() { q.PutKey(fmt.Sprint("k", i%2), []byte("x")) })
		}
		wg.Go(func() {
			if _, err := q.Poll(context.Background(), 1); err != nil {
				panic(err)
			}
		})
		wg.Go(func() { q.Lease() })
		wg.Wait()
		require.Equal(t, putters, q.Len(), "no Put lost to a second map")
	})
}

// memQueuePanic runs f and returns what it panicked with, nil if nothing.
func memQueuePanic(f func()) (v any) {
	defer func() { v = recover() }()
	f()
	return nil
}
