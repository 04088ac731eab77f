package weftjs_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/weftrt/weft/intake"
	weftjs "github.com/weftrt/weft/jetstream"
	"github.com/weftrt/weft/slots"
)

// A partition's consumer deleted while no pull on it is in flight (an
// operator's mistake, a stream restored without its consumers): the next
// pull finds no consumer to answer it (503). The source must make the
// consumer again, as it does the unkeyed one, or the partition's tasks
// are never delivered again while the worker lives.
func TestKeyedPartitionConsumerDeletedBetweenPolls(t *testing.T) {
	srv := startServer(t)
	js := connect(t, srv.url())
	cfg := weftjs.Config{Stream: "KDEL", Partitions: 1, PollWait: 100 * time.Millisecond, MemberTTL: time.Second}
	src := newSource(t, js, cfg)
	defer src.Close()
	ctx := context.Background()

	require.NoError(t, src.PublishKey(ctx, "a", []byte("first")))
	tasks, err := pollUntil(t, src, 1)
	require.NoError(t, err)
	require.NoError(t, tasks[0].Ack(ctx))

	cfg = src.Config()
	require.NoError(t, js.DeleteConsumer(ctx, cfg.Stream, cfg.Consumer+"_p0"))
	require.NoError(t, src.PublishKey(ctx, "a", []byte("second")))

	tasks, err = pollUntil(t, src, 1)
	require.NoError(t, err, "the partition's task never came back after its consumer was deleted")
	require.Equal(t, "second", string(tasks[0].Payload()))
	require.NoError(t, tasks[0].Ack(ctx))
}

// pollUntil polls src until it has brought want tasks, for up to ten
// seconds, and returns them with the last poll's error if they never
// came.
func pollUntil(t testing.TB, src *weftjs.Source, want int) ([]intake.Task, error) {
	t.Helper()
	var got []intake.Task
	var last error
	deadline := time.Now().Add(10 * time.Second)
	for len(got) < want && time.Now().Before(deadline) {
		tasks, err := src.Poll(context.Background(), want-len(got))
		for _, task := range tasks {
			task.(intake.OrderKeeper).Taken()
		}
		got = append(got, tasks...)
		if err != nil {
			last = err
		}
	}
	if len(got) < want {
		if last == nil {
			last = context.DeadlineExceeded
		}
		return got, last
	}
	return got, nil
}

// A keyed worker whose stream is deleted and made again under it (its
// consumers go with it) goes on: its polls make the stream and the
// consumers again, and the tasks published after run.
func TestKeyedWorkerStreamRecreated(t *testing.T) {
	srv := startServer(t)
	js := connect(t, srv.url())
	cfg := weftjs.Config{Stream: "KREC", Partitions: 2, PollWait: 100 * time.Millisecond, MemberTTL: time.Second}
	src := newSource(t, js, cfg)
	defer src.Close()
	ctx := context.Background()
	var done atomic.Int64
	w := newWorker(t, intake.Config{
		Source: src, Supplier: slots.NewFixed(4), PollBackoff: func(int) time.Duration { return 10 * time.Millisecond },
		Handler: func(context.Context, intake.Task) error {
			done.Add(1)
			return nil
		},
	})
	defer w.Close()
	for i := range 4 {
		require.NoError(t, src.PublishKey(ctx, fmt.Sprint("k", i), nil))
	}
	eventually(t, 10*time.Second, func() bool { return done.Load() == 4 }, "the first tasks done")
	require.NoError(t, js.DeleteStream(ctx, "KREC"))
	// The worker's next poll makes the stream again (and then its
	// consumers); publish once it exists.
	eventually(t, 10*time.Second, func() bool {
		_, err := js.Stream(ctx, "KREC")
		return err == nil
	}, "the stream made again")
	eventually(t, 10*time.Second, func() bool {
		for i := range 4 {
			if src.PublishKey(ctx, fmt.Sprint("k", i), nil) != nil {
				return false
			}
		}
		return true
	}, "keyed tasks published to the new stream")
	eventually(t, 10*time.Second, func() bool { return done.Load() >= 8 }, "the tasks published after the stream was made again done")
}

// A poll's sweep that has tasks of one partition and then fails on
// another (here a partition's consumer is gone: 503) keeps the tasks it
// has: returned with the error, the worker would hand them back, and a
// keyed task's hand-back is a Nak, which counts a delivery. A partition
// that fails every poll would so push the healthy partitions' tasks to
// MaxDeliveries without their ever running. The failure goes to OnError.
func TestKeyedSweepKeepsTasksWhenALaterPartitionFails(t *testing.T) {
	srv := startServer(t)
	js := connect(t, srv.url())
	reported := make(chan error, 16)
	cfg := weftjs.Config{
		Stream: "KSWEEP", Partitions: 2, PollWait: 100 * time.Millisecond, MemberTTL: time.Second,
		OnError: func(err error) {
			select {
			case reported <- err:
			default:
			}
		},
	}
	src := newSource(t, js, cfg)
	defer src.Close()
	ctx := context.Background()
	eventually(t, 10*time.Second, func() bool { return len(src.OwnedPartitions()) == 2 }, "both partitions owned")

	key := "a"
	for weftjs.PartitionOf(key, 2) != 0 {
		key += "a"
	}
	require.NoError(t, src.PublishKey(ctx, key, []byte("task")))
	cfg = src.Config()
	require.NoError(t, js.DeleteConsumer(ctx, cfg.Stream, cfg.Consumer+"_p1"))

	// The first poll's sweep starts at partition 0, then asks partition 1.
	tasks, err := src.Poll(ctx, 2)
	require.Len(t, tasks, 1)
	require.NoError(t, err, "the poll failed with a task in hand: the worker would hand it back, counting a delivery")
	tasks[0].(intake.OrderKeeper).Taken()
	require.Equal(t, 1, tasks[0].Deliveries())
	require.NoError(t, tasks[0].Ack(ctx))
	select {
	case err := <-reported:
		require.ErrorContains(t, err, "503")
	case <-time.After(10 * time.Second):
		t.Fatal("the failed pull was not reported")
	}
	// The next polls make partition 1's consumer again.
	require.NoError(t, src.PublishKey(ctx, key+"b", nil))
	_, err = pollUntil(t, src, 1)
	require.NoError(t, err)
}
