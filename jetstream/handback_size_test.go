package weftjs_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/weftrt/weft/intake"
	weftjs "github.com/weftrt/weft/jetstream"
)

// A task near the server's max_payload is handed back (a shutdown, a
// pause) several times before it runs. Its copy must fit as the task did:
// with the delivery count and the stream check added it would not, the
// republish failed every time, and each hand-back became a Nak, which
// counts a delivery, so that a few graceful restarts made a healthy task
// that never ran reach MaxDeliveries and be terminated. The copy leaves
// out what it can do without (a count of 0, the stream check, at the
// very limit the ID): each hand-back counts nothing, and the task comes
// back whole on its first counted delivery.
func TestHandBackOfTaskNearMaxPayloadCountsNoDelivery(t *testing.T) {
	for _, tc := range []struct {
		name   string
		short  int  // bytes below max_payload
		keepID bool // the copy still has room for the task's ID
	}{
		{"a few bytes short", 40, true},
		{"at the limit", 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const rounds = 6
			srv := startServer(t)
			js := connect(t, srv.url())
			src := newSource(t, js, weftjs.Config{AckWait: time.Minute, PollWait: 100 * time.Millisecond, MaxDeliver: 5})
			defer src.Close()
			payload := make([]byte, int(js.Conn().MaxPayload())-tc.short)
			for i := range payload {
				payload[i] = byte(i * 7)
			}
			_, err := js.Publish(context.Background(), src.Subject(), payload)
			require.NoError(t, err, "the task itself fits")

			ctx := context.Background()
			poll := func() intake.Task {
				t.Helper()
				var got []intake.Task
				eventually(t, 10*time.Second, func() bool {
					got, err = src.Poll(ctx, 1)
					require.NoError(t, err)
					return len(got) == 1
				}, "the task delivered")
				return got[0]
			}
			first := poll()
			id := first.ID()
			task := first
			for round := range rounds {
				require.Equal(t, 1, task.Deliveries(), "round %d: a hand-back counted a delivery", round)
				require.NoError(t, task.(intake.HandBacker).HandBack(ctx), "round %d", round)
				task = poll()
			}
			require.Equal(t, 1, task.Deliveries(), "the hand-backs counted deliveries")
			require.Equal(t, payload, task.Payload(), "the task comes back whole")
			if tc.keepID {
				require.Equal(t, id, task.ID(), "the copy keeps the task's ID")
			}
			require.EqualValues(t, rounds, src.Stats().HandedBack)
			require.EqualValues(t, 1, streamMsgs(t, js, src.Config().Stream), "one copy of the task")
			require.NoError(t, task.Ack(ctx))
			require.Zero(t, streamMsgs(t, js, src.Config().Stream))
		})
	}
}
