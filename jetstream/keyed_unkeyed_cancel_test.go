package weftjs_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/require"
	"github.com/weftrt/weft/intake"
	weftjs "github.com/weftrt/weft/jetstream"
)

// In a keyed source, the unkeyed consumer is pulled with the same short
// expiry as the partitions (no wait on the first pass). A poll cancelled
// while that answer is on the wire must not drop it: the task would come
// back only after AckWait (a minute here).
func TestKeyedSourceUnkeyedAnswerOnTheWire(t *testing.T) {
	srv := startServer(t)
	gate := newGateDialer()
	js := connect(t, srv.url(), nats.SetCustomDialer(gate))
	cfg := weftjs.Config{
		Stream: "KEYEDUNK", Partitions: 1, AckWait: time.Minute,
		PollWait: 100 * time.Millisecond, MemberTTL: time.Second,
	}
	src := newSource(t, js, cfg)
	defer src.Close()
	eventually(t, 10*time.Second, func() bool { return len(src.OwnedPartitions()) == 1 }, "the partition assigned")
	ctx := context.Background()
	require.NoError(t, src.Publish(ctx, []byte("unkeyed")))

	// Hold back the unkeyed consumer's message ("weft", not "weft_p0").
	gate.arm("$JS.ACK.KEYEDUNK.weft.")
	res := pollCancelledOnTheWire(t, src, gate)
	require.True(t, errors.Is(res.err, context.Canceled), "poll error %v", res.err)
	got := len(res.tasks)
	for _, task := range res.tasks {
		require.NoError(t, task.(intake.HandBacker).HandBack(ctx))
	}
	deadline := time.Now().Add(5 * time.Second)
	for got == 0 && time.Now().Before(deadline) {
		pctx, pcancel := context.WithTimeout(ctx, time.Second)
		tasks, err := src.Poll(pctx, 1)
		pcancel()
		require.NoError(t, err)
		for _, task := range tasks {
			require.NoError(t, task.Ack(ctx))
			got++
		}
	}
	require.Equal(t, 1, got, "the unkeyed task, dropped on the wire by a cancelled poll, comes back only after AckWait")
}
