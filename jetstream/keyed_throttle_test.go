package weftjs_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/require"
	weftjs "github.com/weftrt/weft/jetstream"
)

// TestPollsBackOffAtMaxAckPending for a keyed source. Another client's
// pull request waits on the consumer (another worker's, held back by
// MaxAckPending or by this worker's pin) for more messages than are
// left, so the server answers every request of this worker "Requests
// Pending" at once. A keyed poll's sweep must back that consumer off as
// the unkeyed poll does, and count it: it went straight on to its next
// pass instead, re-asking for the whole of PollWait, and ThrottledPolls
// stayed 0.
func TestKeyedPollsBackOffAtMaxAckPending(t *testing.T) {
	for _, tc := range []struct {
		name     string
		keyed    bool
		consumer func(weftjs.Config) string
		group    string // the pinned partition's, for the other client's request
	}{
		{"partition", true, func(c weftjs.Config) string { return c.Consumer + "_p0" }, "weft"},
		{"unkeyed consumer", false, func(c weftjs.Config) string { return c.Consumer }, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const maxAckPending = 2
			var pauses pauseLog
			defer weftjs.ObserveThrottle(pauses.add)()
			srv := startServer(t)
			js := connect(t, srv.url())
			src := newSource(t, js, weftjs.Config{
				Partitions: 1, PollWait: time.Second, AckWait: time.Minute, MaxAckPending: maxAckPending,
				OnError: func(error) {},
			})
			defer src.Close()
			eventually(t, 10*time.Second, func() bool { return len(src.OwnedPartitions()) == 1 }, "the partition assigned")
			const n = 4 // fewer than the free slots
			ctx := context.Background()
			for i := range n {
				if tc.keyed {
					require.NoError(t, src.PublishKey(ctx, fmt.Sprint("k", i), nil)) // a key each: none waits for its key
				} else {
					require.NoError(t, src.Publish(ctx, nil))
				}
			}

			w, release := workerAtMaxAckPending(t, src, maxAckPending, func(error) {})
			defer release() // a failed test must not leave handlers blocked

			// The other client's request: it gets nothing (MaxAckPending
			// is reached, and a partition is pinned to the worker), and
			// waits a minute.
			other, err := nats.Connect(srv.url())
			require.NoError(t, err)
			defer other.Close()
			inbox, err := other.SubscribeSync(other.NewInbox())
			require.NoError(t, err)
			cons := tc.consumer(src.Config())
			req := fmt.Sprintf(`{"batch":100,"expires":%d,"group":%q}`, time.Minute, tc.group)
			require.NoError(t, other.PublishRequest(fmt.Sprintf("$JS.API.CONSUMER.MSG.NEXT.%s.%s", src.Config().Stream, cons), inbox.Subject, []byte(req)))
			require.NoError(t, other.Flush())

			// As in TestPollsBackOffAtMaxAckPending, the fifth pause in a
			// row is at least 80ms; here no poll brings a task once the
			// other request waits, so the seven pauses are all in a row.
			eventually(t, 10*time.Second, func() bool { return len(pauses.all()) >= 7 }, "seven throttled polls")
			got := pauses.all()
			// Its inbox gone, the server drops the other request, which
			// would otherwise take the tasks left once the running ones
			// are acked.
			require.NoError(t, inbox.Unsubscribe())
			require.NoError(t, other.Flush())
			release()
			eventually(t, 10*time.Second, func() bool { return w.Stats().Acked == n }, "every task acked once the running ones finish")
			require.NoError(t, w.Shutdown(context.Background()))
			t.Logf("pauses: %v; throttled polls in all: %d", got, src.Stats().ThrottledPolls)
			require.GreaterOrEqual(t, slices.Max(got[:7]), 80*time.Millisecond, "the longest of seven pauses")
			require.Positive(t, src.Stats().ThrottledPolls)
		})
	}
}
