package weftjs_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/weftrt/weft/intake"
	weftjs "github.com/weftrt/weft/jetstream"
)

// A keyed poll whose context has already ended (a Pause that came between
// two pulls of a sweep) must not pull: a partition's pull reads its answer
// to the end, so the tasks it brings are handed back with a Nak, each
// counting a delivery it never ran. Here each poll with an ended context
// must leave the key's task undelivered: it then comes with Deliveries 1.
func TestKeyedPollWithEndedContextCountsNoDelivery(t *testing.T) {
	srv := startServer(t)
	js := connect(t, srv.url())
	cfg := weftjs.Config{
		Stream: "KEYEDENDED", Partitions: 1, AckWait: time.Minute,
		PollWait: 100 * time.Millisecond, MemberTTL: time.Second,
	}
	src := newSource(t, js, cfg)
	defer src.Close()
	eventually(t, 10*time.Second, func() bool { return len(src.OwnedPartitions()) == 1 }, "the partition assigned")
	ctx := context.Background()
	require.NoError(t, src.PublishKey(ctx, "K", []byte("task")))
	dead, cancel := context.WithCancel(ctx)
	cancel()
	returned := 0
	// Two polls, so that one sweep starts at the partition.
	for range 2 {
		tasks, err := src.Poll(dead, 1)
		require.ErrorIs(t, err, context.Canceled)
		for _, task := range tasks {
			require.NoError(t, task.(intake.HandBacker).HandBack(ctx))
			task.(intake.OrderKeeper).Taken()
			returned++
		}
	}
	task := pollOne(t, src)
	task.(intake.OrderKeeper).Taken()
	require.NoError(t, task.Ack(ctx))
	require.Equal(t, 1, task.Deliveries(), "polls with an ended context took the task %d times (each hand-back a delivery)", returned)
}
