package weftjs_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/weftrt/weft/intake"
	weftjs "github.com/weftrt/weft/jetstream"
	"github.com/weftrt/weft/slots"
)

// A worker that loses a partition to a newcomer while it still runs a
// task of the partition keeps the pin until that task is settled: the
// newcomer runs the key's next tasks only after it, however long it takes
// (here, ten lease renewals, each at least a Heartbeat apart, well past
// PinnedTTL).
func TestReassignedPartitionKeepsPinWhileItsTaskRuns(t *testing.T) {
	newcomer := ""
	for i := 0; newcomer == ""; i++ {
		if id := fmt.Sprintf("x%d", i); weftjs.Assign(1, []string{"a", id})[0] == id {
			newcomer = id
		}
	}
	srv := startServer(t)
	cfg := weftjs.Config{
		// TTLs long enough that a renewal stalled for most of a second on
		// a loaded machine does not let the pin or an entry lapse.
		Stream: "HANDOVER", Partitions: 1, AckWait: 3 * time.Second,
		PinnedTTL: 1500 * time.Millisecond, MemberTTL: 1500 * time.Millisecond,
		PollWait: 100 * time.Millisecond, MemberID: "a",
	}
	src1 := newSource(t, connect(t, srv.url()), cfg)
	defer src1.Close()
	for i := range 3 {
		require.NoError(t, src1.PublishKey(context.Background(), "K", fmt.Appendf(nil, "%d", i)))
	}

	var mu sync.Mutex
	var events []string
	running, overlaps := 0, 0
	started, release := make(chan struct{}), make(chan struct{})
	handler := func(who string) intake.Handler {
		return func(_ context.Context, task intake.Task) error {
			mu.Lock()
			if running++; running > 1 {
				overlaps++
			}
			events = append(events, who+" runs "+string(task.Payload()))
			mu.Unlock()
			if string(task.Payload()) == "0" {
				close(started)
				<-release
			}
			mu.Lock()
			running--
			mu.Unlock()
			return nil
		}
	}
	w1 := newWorker(t, intake.Config{
		Source: src1, Supplier: slots.NewFixed(1), Heartbeat: 300 * time.Millisecond, Handler: handler("a"),
	})
	<-started

	cfg.MemberID = newcomer
	src2 := newSource(t, connect(t, srv.url()), cfg)
	defer src2.Close()
	w2 := newWorker(t, intake.Config{Source: src2, Supplier: slots.NewFixed(1), Handler: handler(newcomer)})
	eventually(t, 10*time.Second, func() bool {
		return len(src2.OwnedPartitions()) == 1 && len(src1.OwnedPartitions()) == 0
	}, "the partition assigned to the newcomer")
	beats := w1.Stats().Heartbeats
	eventually(t, 30*time.Second, func() bool { return w1.Stats().Heartbeats >= beats+10 }, "task 0 held through 10 lease renewals")
	close(release)
	eventually(t, 10*time.Second, func() bool { return w1.Stats().Acked+w2.Stats().Acked == 3 }, "all 3 tasks acknowledged")
	require.NoError(t, w1.Shutdown(context.Background()))
	require.NoError(t, w2.Shutdown(context.Background()))
	mu.Lock()
	defer mu.Unlock()
	require.Zero(t, overlaps, "two tasks of key K ran at once on two live workers: %v", events)
	require.Equal(t, []string{"a runs 0", newcomer + " runs 1", newcomer + " runs 2"}, events)
}
