package intake_test

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/weftrt/weft/intake"
)

// payloads returns the payloads of tasks as strings, in order.
func payloads(tasks []intake.Task) []string {
	out := make([]string, len(tasks))
	for i, t := range tasks {
		out[i] = string(t.Payload())
	}
	return out
}

// A key's tasks are delivered one at a time, in put order; other keys and
// unkeyed tasks are not held back by it.
func TestMemQueueKeyGroupsDeliverInOrder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := intake.NewMemQueue(intake.MemQueueConfig{Lease: time.Hour, PollWait: time.Second})
		q.PutKey("a", []byte("a1"))
		q.PutKey("a", []byte("a2"))
		q.PutKey("b", []byte("b1"))
		q.Put([]byte("u1"))
		q.PutKey("a", []byte("a3"))
		require.EqualValues(t, 5, q.Backlog())

		first := mustPoll(t, q, time.Minute)
		require.Equal(t, []string{"a1", "b1", "u1"}, payloads(first))
		require.Equal(t, "a", first[0].(intake.Keyed).Key())
		require.Equal(t, "", first[2].(intake.Keyed).Key())
		require.EqualValues(t, 2, q.Backlog(), "a2 and a3 wait behind a1")
		require.Empty(t, mustPoll(t, q, time.Minute), "a is held while a1 is leased")

		ctx := context.Background()
		require.NoError(t, first[0].Ack(ctx))
		require.Equal(t, []string{"a2"}, payloads(mustPoll(t, q, time.Minute)))
	})
}

// A Nack, an expired lease and a delay all return the task to the head of
// its key's group: the tasks behind it stay behind, so a key's order holds
// across retries.
func TestMemQueueKeyOrderSurvivesRetries(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := intake.NewMemQueue(intake.MemQueueConfig{Lease: time.Minute, PollWait: time.Hour})
		q.PutKey("k", []byte("k1"))
		q.PutKey("k", []byte("k2"))
		ctx := context.Background()

		d := poll1(t, q)
		require.NoError(t, d.Nack(ctx, 0))
		d = poll1(t, q)
		require.Equal(t, "k1", string(d.Payload()))
		require.Equal(t, 2, d.Deliveries())

		require.NoError(t, d.Nack(ctx, 10*time.Second))
		require.Empty(t, mustPoll(t, q, 5*time.Second), "k2 does not pass k1's delay")
		d = poll1(t, q) // k1, once its delay is over
		require.Equal(t, "k1", string(d.Payload()))

		d = poll1(t, q) // the lease of delivery 3 runs out: k1 again
		require.Equal(t, "k1", string(d.Payload()))
		require.Equal(t, 4, d.Deliveries())

		require.NoError(t, d.Terminate(ctx, "poison"))
		d = poll1(t, q)
		require.Equal(t, "k2", string(d.Payload()), "a terminated head frees its key")
		require.Equal(t, 1, d.Deliveries())
		require.NoError(t, d.Ack(ctx))
		require.Equal(t, 0, q.Len())
		require.EqualValues(t, 0, q.Backlog())
	})
}
