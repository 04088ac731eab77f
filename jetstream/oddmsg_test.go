package weftjs_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/require"
	"github.com/weftrt/weft/intake"
	"github.com/weftrt/weft/intake/intaketest"
	weftjs "github.com/weftrt/weft/jetstream"
	"github.com/weftrt/weft/slots"
)

// A hostile (or careless) producer publishes, among ordinary tasks,
// empty messages whose headers look like the server's status replies. A
// message from the stream always carries the server's ack subject, so
// they are tasks like the others: each runs once and is acked, no task
// around them is terminated or stranded, and the stream ends empty.
func TestMessagesThatLookLikeStatusesAreTasks(t *testing.T) {
	const good, maxDeliver = 200, 3
	srv := startServer(t)
	js := connect(t, srv.url())
	src := newSource(t, js, weftjs.Config{AckWait: time.Second, PollWait: 100 * time.Millisecond, MaxDeliver: maxDeliver})
	defer src.Close()
	odd := []nats.Header{
		{"Status": {"404"}, "Description": {"No Messages"}},
		{"Status": {"408"}, "Description": {"Requests Pending"}},
		{"Status": {"409"}, "Description": {"Consumer Deleted"}},
		{"Status": {"100"}, "Description": {"Idle Heartbeat"}},
		{"Status": {"503"}},
	}
	for i, h := range odd {
		publishN(t, js, src.Subject(), i*good/len(odd), good/len(odd))
		m := nats.NewMsg(src.Subject())
		m.Header = h
		_, err := js.PublishMsg(context.Background(), m)
		require.NoError(t, err)
	}
	total := good + len(odd)

	var mu sync.Mutex
	runs := map[string]int{}
	l := intaketest.NewLedger(8)
	w := newWorker(t, intake.Config{
		Source:        l.Source(src),
		Supplier:      l.Supplier(slots.NewFixed(8)),
		MaxDeliveries: maxDeliver - 1,
		OnError:       func(error) {},
		Handler: func(_ context.Context, task intake.Task) error {
			mu.Lock()
			defer mu.Unlock()
			runs[task.ID()]++
			return nil
		},
	})
	eventually(t, 20*time.Second, func() bool { return w.Stats().Acked == uint64(total) }, "every message acked (%+v)", w.Stats())
	eventually(t, 10*time.Second, func() bool { return streamMsgs(t, js, src.Config().Stream) == 0 }, "stream drained")
	require.NoError(t, w.Shutdown(context.Background()))
	s := w.Stats()
	require.Zero(t, s.Terminated)
	require.Len(t, runs, total)
	for id, k := range runs {
		require.Equal(t, 1, k, "task %s ran %d times", id, k)
	}
	require.Empty(t, l.Problems())
}
