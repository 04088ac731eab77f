package intake_test

import (
	"context"
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/weftrt/weft/intake"
	"github.com/weftrt/weft/slots"
)

// trackedPayloads makes n payloads of size bytes and counts, in freed,
// those the garbage collector has reclaimed.
func trackedPayloads(n, size int, freed *atomic.Int64) [][]byte {
	ps := make([][]byte, n)
	for i := range ps {
		ps[i] = make([]byte, size)
		runtime.AddCleanup(&ps[i][0], func(c *atomic.Int64) { c.Add(1) }, freed)
	}
	return ps
}

// waitFreed collects garbage until want payloads are freed, and fails if
// they are still reachable after many collections: the bound is a count
// of collections, not a time.
func waitFreed(t *testing.T, freed *atomic.Int64, want int64, what string) {
	t.Helper()
	for range 200 {
		if freed.Load() >= want {
			return
		}
		runtime.GC()
		runtime.Gosched() // let the cleanups run
	}
	t.Fatalf("%s: %d of %d payloads still reachable after 200 collections", what, want-freed.Load(), want)
}

// A settled task's payload is the caller's again: Ack and Terminate take
// the task out of the queue, timers and all, so nothing the queue holds
// keeps the payload alive (Terminate keeps only its record: see
// MemQueue.Terminated). Before, every delivery pushed a lease timer that
// held the task until the lease would have ended (30s by default), or for
// ever on an idle queue.
func TestMemQueueLetsGoOfSettledPayloads(t *testing.T) {
	const n, size = 64, 256 << 10
	var freed atomic.Int64
	q := intake.NewMemQueue(intake.MemQueueConfig{})
	for _, p := range trackedPayloads(n, size, &freed) {
		q.Put(p)
	}
	ctx := context.Background()
	tasks, err := q.Poll(ctx, n)
	require.NoError(t, err)
	require.Len(t, tasks, n)
	for i, task := range tasks {
		if i%2 == 0 {
			require.NoError(t, task.Ack(ctx))
		} else {
			require.NoError(t, task.(interface {
				InProgress(context.Context) error
			}).InProgress(ctx)) // an extended lease, then the ack
			require.NoError(t, task.Ack(ctx))
		}
	}
	tasks = nil
	waitFreed(t, &freed, n, "acked")
	require.Zero(t, q.Len())
}

// A nacked task's old lease leaves nothing behind either: after its next
// delivery is acknowledged, the payload is free.
func TestMemQueueLetsGoAfterNackThenAck(t *testing.T) {
	const n, size = 8, 256 << 10
	var freed atomic.Int64
	q := intake.NewMemQueue(intake.MemQueueConfig{})
	for _, p := range trackedPayloads(n, size, &freed) {
		q.Put(p)
	}
	ctx := context.Background()
	for round := range 2 {
		tasks, err := q.Poll(ctx, n)
		require.NoError(t, err)
		require.Len(t, tasks, n, "round %d", round)
		for _, task := range tasks {
			if round == 0 {
				require.NoError(t, task.Nack(ctx, 0))
			} else {
				require.NoError(t, task.Ack(ctx))
			}
		}
	}
	waitFreed(t, &freed, n, "nacked, then acked")
	runtime.KeepAlive(q) // the queue lives on; only the tasks must go
}

// Through the task worker, as a service runs it: once the worker has
// acknowledged the tasks, their payloads are free while the worker and
// its queue live on.
func TestWorkerLetsGoOfAckedPayloads(t *testing.T) {
	const n, size = 64, 256 << 10
	var freed atomic.Int64
	q := intake.NewMemQueue(intake.MemQueueConfig{})
	w := newWorker(t, intake.Config{
		Source:   q,
		Supplier: slots.NewFixed(4),
		Handler:  func(context.Context, intake.Task) error { return nil },
	})
	for _, p := range trackedPayloads(n, size, &freed) {
		q.Put(p)
	}
	for i := 0; w.Stats().Acked < n; i++ {
		require.Less(t, i, 1_000_000, "the worker did not ack the tasks: %+v", w.Stats())
		runtime.Gosched()
	}
	waitFreed(t, &freed, n, "acked by the worker")
	runtime.KeepAlive(q)
}
