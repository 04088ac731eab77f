package weftjs_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	natsjs "github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"
	weftjs "github.com/weftrt/weft/jetstream"
)

// The member loop binds the partitions' consumers again once a poll has
// found one gone. When that fails (here BindOnly, and the consumer was
// deleted), the loop neither renews the worker's entry nor shares the
// partitions out: the worker drops out of the membership. That must
// reach OnError; the loop dropped the error.
func TestMemberLoopReportsBindFailure(t *testing.T) {
	srv := startServer(t)
	js := connect(t, srv.url())
	cfg := weftjs.Config{Stream: "KBIND", Partitions: 1, PollWait: 100 * time.Millisecond, MemberTTL: time.Second}
	newSource(t, js, cfg).Close() // makes the stream, the consumers and the bucket

	var mu sync.Mutex
	var reported []error
	cfg.BindOnly = true
	cfg.OnError = func(err error) {
		mu.Lock()
		reported = append(reported, err)
		mu.Unlock()
	}
	src := newSource(t, js, cfg)
	defer src.Close()
	eventually(t, 10*time.Second, func() bool { return slices.Equal(src.OwnedPartitions(), []int{0}) }, "the partition assigned")

	ctx := context.Background()
	require.NoError(t, js.DeleteConsumer(ctx, cfg.Stream, src.Config().Consumer+"_p0"))
	// A poll finds the consumer gone, and the member loop's next refresh
	// binds again, which BindOnly makes fail.
	eventually(t, 10*time.Second, func() bool {
		_, err := src.Poll(ctx, 1)
		return err != nil
	}, "a poll failing on the deleted partition consumer")
	eventually(t, 10*time.Second, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return slices.ContainsFunc(reported, func(err error) bool { return errors.Is(err, natsjs.ErrConsumerNotFound) })
	}, "the member loop's bind failure reported")
}
