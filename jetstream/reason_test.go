package weftjs_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/require"
	"github.com/weftrt/weft/intake"
	weftjs "github.com/weftrt/weft/jetstream"
	"github.com/weftrt/weft/slots"
)

// A handler panics with a value larger than the server's max_payload, on
// the task's last allowed delivery. The terminate reason that reaches the
// server's advisory is the panic's value and type, bounded, with no stack
// (no source paths); the stack goes to the worker's error hook. The
// terminate succeeds (an oversized one would fail, and the task would run
// again and again), so the task is counted terminated once and the work
// queue is empty.
func TestTerminateReasonIsBounded(t *testing.T) {
	srv := startServer(t)
	js := connect(t, srv.url())
	src := newSource(t, js, weftjs.Config{PollWait: 100 * time.Millisecond, AckWait: 2 * time.Second})
	defer src.Close()

	// The server's advisory for each terminated message.
	nc, err := nats.Connect(srv.url())
	require.NoError(t, err)
	defer nc.Close()
	advisories := make(chan *nats.Msg, 16)
	sub, err := nc.ChanSubscribe("$JS.EVENT.ADVISORY.CONSUMER.MSG_TERMINATED.>", advisories)
	require.NoError(t, err)
	defer func() { _ = sub.Unsubscribe() }()
	require.NoError(t, nc.Flush())

	publishN(t, js, src.Subject(), 0, 1)
	huge := strings.Repeat("x", 2*int(nc.MaxPayload()))
	stacks := make(chan string, 16)
	w := newWorker(t, intake.Config{
		Source:        src,
		Supplier:      slots.NewFixed(1),
		MaxDeliveries: 1,
		OnError: func(err error) {
			if strings.Contains(err.Error(), "goroutine") {
				select {
				case stacks <- err.Error():
				default:
				}
			}
		},
		Handler: func(context.Context, intake.Task) error { panic(huge) },
	})
	var adv struct {
		Reason string `json:"reason"`
	}
	select {
	case m := <-advisories:
		require.NoError(t, json.Unmarshal(m.Data, &adv))
	case <-time.After(20 * time.Second):
		t.Fatalf("no terminate advisory (stats %+v)", w.Stats())
	}
	require.LessOrEqual(t, len(adv.Reason), 1024, "the reason is bounded")
	require.Contains(t, adv.Reason, "panicked")
	require.Contains(t, adv.Reason, "(string)", "the reason names the panic value's type")
	require.NotContains(t, adv.Reason, "goroutine", "no stack in the advisory")
	require.NotContains(t, adv.Reason, ".go:", "no source paths in the advisory")
	eventually(t, 10*time.Second, func() bool { return streamMsgs(t, js, src.Config().Stream) == 0 }, "the task is gone from the work queue")
	eventually(t, 10*time.Second, func() bool { return w.Stats().Settling == 0 }, "settled")
	require.NoError(t, w.Shutdown(context.Background()))
	s := w.Stats()
	require.EqualValues(t, 1, s.Started, "the task ran once")
	require.EqualValues(t, 1, s.Terminated)
	require.Contains(t, <-stacks, "goroutine", "the stack went to the error hook")
}
