package weftjs_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/weftrt/weft/intake"
	weftjs "github.com/weftrt/weft/jetstream"
	"github.com/weftrt/weft/slots"
)

// A worker drains a work-queue stream: every message runs once and is
// acknowledged, and the stream is left empty.
func TestWorkerDrainsStream(t *testing.T) {
	const n = 2000
	srv := startServer(t)
	js := connect(t, srv.url())
	src := newSource(t, js, weftjs.Config{PollWait: 200 * time.Millisecond})
	publishN(t, js, src.Subject(), 0, n)

	var mu sync.Mutex
	seen := map[string]int{}
	w := newWorker(t, intake.Config{
		Source:   src,
		Supplier: slots.NewFixed(16),
		Handler: func(_ context.Context, task intake.Task) error {
			mu.Lock()
			seen[string(task.Payload())]++
			mu.Unlock()
			return nil
		},
	})
	eventually(t, 30*time.Second, func() bool { return w.Stats().Acked == n }, "acked %d of %d", w.Stats().Acked, n)
	require.NoError(t, w.Shutdown(context.Background()))
	require.Len(t, seen, n)
	require.Zero(t, streamMsgs(t, js, src.Config().Stream))
	s := w.Stats()
	require.Zero(t, s.Redelivered+s.SettleErrors+s.Failed)
	require.Zero(t, s.Slots.InUse+s.Slots.Reserved)
	t.Logf("polls %d (%d empty), poll time %v, pollers %d", s.Polls, s.EmptyPolls, s.PollTime, s.Pollers)
}
