package weftjs_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/require"
	"github.com/weftrt/weft/intake"
	weftjs "github.com/weftrt/weft/jetstream"
)

// A keyed task handed back while the connection is down: its Nak fails,
// and the failure reaches OnError after the source has let go of its
// partition lock, so an OnError that asks the source for its partitions
// (user code may) goes on instead of deadlocking the hand-back.
func TestFailedNakIsReportedOutsideThePartitionLock(t *testing.T) {
	srv := startServer(t)
	js := connect(t, srv.url())
	var (
		mu      sync.Mutex
		nakErrs []error
		src     *weftjs.Source
		ready   = make(chan struct{})
	)
	cfg := weftjs.Config{Stream: "NAKLOCK", Partitions: 1, PollWait: 200 * time.Millisecond, MemberTTL: time.Second}
	cfg.OnError = func(err error) {
		<-ready
		_ = src.OwnedPartitions() // takes the partition lock
		if errors.Is(err, nats.ErrConnectionClosed) {
			mu.Lock()
			nakErrs = append(nakErrs, err)
			mu.Unlock()
		}
	}
	src = newSource(t, js, cfg)
	close(ready)
	defer src.Close()
	publishKeyed(t, js, src.KeyedPrefix(), 1, 1)

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var tasks []intake.Task
	for len(tasks) == 0 {
		got, err := src.Poll(ctx, 1)
		require.NoError(t, err)
		tasks = got
	}
	task := tasks[0]
	task.(intake.OrderKeeper).Taken()
	require.NotEmpty(t, task.(intake.Keyed).Key())

	js.Conn().Close()
	require.NoError(t, task.(intake.HandBacker).HandBack(context.Background()),
		"a keyed hand-back defers its Nak to the partition")
	mu.Lock()
	defer mu.Unlock()
	require.Len(t, nakErrs, 1, "the failed Nak is reported once")
	require.Contains(t, nakErrs[0].Error(), "comes back after AckWait")
}
