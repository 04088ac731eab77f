package weftjs_test

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	weftjs "github.com/weftrt/weft/jetstream"
)

// A keyed source's first pass asks the unkeyed consumer, and a partition
// whose pin this worker holds, without an expiry (no_wait alone). At
// MaxAckPending, with messages left and no other request waiting, the
// server holds such a request without answering; the poll then gave up
// after a second ("no answer to a pull request"), counted a poll error and
// dropped the consumer's binding, over and over while the tasks ran. The
// server's silence there is no failure: the polls must end without one.
func TestKeyedPollAtMaxAckPendingIsNoError(t *testing.T) {
	for _, tc := range []struct {
		name  string
		keyed bool
	}{
		{"partition", true},
		{"unkeyed consumer", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const maxAckPending = 2
			srv := startServer(t)
			js := connect(t, srv.url())
			var noAnswer atomic.Int64
			onError := func(err error) {
				if strings.Contains(err.Error(), "no answer to a pull request") {
					noAnswer.Add(1)
				}
			}
			src := newSource(t, js, weftjs.Config{
				Partitions: 1, PollWait: 500 * time.Millisecond, AckWait: time.Minute, MaxAckPending: maxAckPending,
				OnError: onError,
			})
			defer src.Close()
			eventually(t, 10*time.Second, func() bool { return len(src.OwnedPartitions()) == 1 }, "the partition assigned")
			const n = 4 // more than MaxAckPending, fewer than the free slots
			ctx := context.Background()
			for i := range n {
				if tc.keyed {
					require.NoError(t, src.PublishKey(ctx, fmt.Sprint("k", i), nil))
				} else {
					require.NoError(t, src.Publish(ctx, nil))
				}
			}

			w, release := workerAtMaxAckPending(t, src, maxAckPending, onError)
			defer release() // a failed test must not leave handlers blocked
			// Let the pollers go on asking at MaxAckPending for a while:
			// until a poll fails, or enough polls have ended (each held
			// request gave up after a second).
			polls := w.Stats().Polls
			eventually(t, 30*time.Second, func() bool {
				s := w.Stats()
				return s.PollErrors > 0 || noAnswer.Load() > 0 || s.Polls >= polls+6
			}, "polls at MaxAckPending")
			st := w.Stats()
			release()
			eventually(t, 10*time.Second, func() bool { return w.Stats().Acked == n }, "every task acked once the running ones finish")
			require.NoError(t, w.Shutdown(context.Background()))
			t.Logf("polls %d (from %d), poll errors %d, no-answer reports %d, throttled %d",
				st.Polls, polls, st.PollErrors, noAnswer.Load(), src.Stats().ThrottledPolls)
			require.Zero(t, st.PollErrors, "poll errors at MaxAckPending")
			require.Zero(t, noAnswer.Load(), "polls that found no answer at MaxAckPending")
		})
	}
}
