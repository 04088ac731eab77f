package weftjs_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	natsjs "github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"
	"github.com/weftrt/weft/intake"
	weftjs "github.com/weftrt/weft/jetstream"
	"github.com/weftrt/weft/slots"
)

// A worker that can no longer bind its partitions' consumers (here
// BindOnly, and one of them was deleted) drops out of the membership,
// and its partitions move to the others once its entry expires. While it
// still runs a task of one of them, that partition's pin must not lapse:
// another worker would be given the key's next tasks while this one,
// alive, still runs the key. The member loop kept no pin alive while the
// bind failed.
func TestUnboundWorkerKeepsPinWhileItsTaskRuns(t *testing.T) {
	srv := startServer(t)
	js := connect(t, srv.url())
	cfg := weftjs.Config{
		Stream: "KUNBOUND", Partitions: 2, AckWait: 5 * time.Second,
		// PinnedTTL far above the pins' renewal period (MemberTTL/3), so
		// that a renewal stalled on a loaded machine does not lapse.
		PinnedTTL: 800 * time.Millisecond, MemberTTL: 300 * time.Millisecond,
		PollWait: 50 * time.Millisecond, MemberID: "a",
	}
	setup := newSource(t, js, cfg) // makes the stream, the consumers and the bucket
	const key = "K"
	held := weftjs.PartitionOf(key, cfg.Partitions)
	require.NoError(t, setup.PublishKey(context.Background(), key, []byte("0")))
	setup.Close()

	var mu sync.Mutex
	var memberErrs int
	var told [][]int
	cfg.BindOnly = true
	cfg.OnPartitions = func(owned []int) {
		mu.Lock()
		told = append(told, owned)
		mu.Unlock()
	}
	cfg.OnError = func(err error) {
		if strings.Contains(err.Error(), "member a in") {
			mu.Lock()
			memberErrs++
			mu.Unlock()
		}
	}
	src := newSource(t, js, cfg)
	defer src.Close()
	started, release := make(chan struct{}), make(chan struct{})
	var releaseOnce sync.Once
	let := func() { releaseOnce.Do(func() { close(release) }) }
	defer let() // a failed check must not leave the task blocked
	w := newWorker(t, intake.Config{
		Source: src, Supplier: slots.NewFixed(2), Handler: func(_ context.Context, task intake.Task) error {
			if string(task.Payload()) == "0" {
				close(started)
				<-release
			}
			return nil
		},
	})
	<-started
	ctx := context.Background()
	pin := pinnedClient(t, js, cfg.Stream, partitionConsumer(src, held))
	require.NotEmpty(t, pin, "the worker holds the pin of the partition whose task it runs")

	// The worker's other slot keeps polling, finds the other partition's
	// consumer gone, and its member loop fails to bind from then on.
	require.NoError(t, js.DeleteConsumer(ctx, cfg.Stream, partitionConsumer(src, 1-held)))
	eventually(t, 10*time.Second, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return memberErrs >= 1
	}, "the member loop failing to bind")
	// Each failed refresh is a MemberTTL/3 tick apart: twenty of them
	// span more than twice PinnedTTL.
	mu.Lock()
	from := memberErrs
	mu.Unlock()
	eventually(t, 30*time.Second, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return memberErrs >= from+20
	}, "twenty failed refreshes")
	require.Equal(t, pin, pinnedClient(t, js, cfg.Stream, partitionConsumer(src, held)),
		"the pin of partition %d lapsed while its task ran", held)
	// Its entry has expired, so the others have shared its partitions out:
	// it reports none either (it reported both, for good).
	require.Empty(t, src.OwnedPartitions())
	mu.Lock()
	require.Empty(t, told[len(told)-1], "OnPartitions told %v", told)
	mu.Unlock()

	let()
	eventually(t, 10*time.Second, func() bool { return w.Stats().Acked >= 1 }, "task 0 acknowledged")
	require.NoError(t, w.Shutdown(ctx))
}

// partitionConsumer names partition i's consumer.
func partitionConsumer(src *weftjs.Source, i int) string {
	return fmt.Sprintf("%s_p%d", src.Config().Consumer, i)
}

// pinnedClient returns the pin the consumer is pinned to now, "" if none.
func pinnedClient(t testing.TB, js natsjs.JetStream, stream, consumer string) string {
	t.Helper()
	c, err := js.Consumer(context.Background(), stream, consumer)
	require.NoError(t, err)
	for _, g := range c.CachedInfo().PriorityGroups {
		if g.PinnedClientID != "" {
			return g.PinnedClientID
		}
	}
	return ""
}
