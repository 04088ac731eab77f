package weftjs_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/weftrt/weft/intake"
	"github.com/weftrt/weft/intake/intaketest"
	weftjs "github.com/weftrt/weft/jetstream"
	"github.com/weftrt/weft/scheduler"
	"github.com/weftrt/weft/slots"
)

// The server goes away mid-run and a new one starts on the same port and
// store. While it is gone, polls fail and the worker backs off, releasing
// each failed poll's slots (none leaks: the ledger sees every one come
// back); the connection reconnects by itself; then every task completes.
// Tasks whose ack was lost with the server run again: counted, and bounded
// by the tasks in flight when it went.
func TestServerRestartMidRun(t *testing.T) {
	const n, maxSlots = 3000, 16
	srv := startServer(t)
	js := connect(t, srv.url())
	src := newSource(t, js, weftjs.Config{AckWait: 2 * time.Second, PollWait: 200 * time.Millisecond})
	defer src.Close()
	publishN(t, js, src.Subject(), 0, n)

	var mu sync.Mutex
	done := map[string]int{}
	l := intaketest.NewLedger(maxSlots)
	w := newWorker(t, intake.Config{
		Source:      l.Source(src),
		Supplier:    l.Supplier(slots.NewFixed(maxSlots)),
		Pool:        newPool(t, 2),
		PollBackoff: intake.Exponential(20*time.Millisecond, 200*time.Millisecond),
		OnError:     func(error) {},
		Handler: func(_ context.Context, _ *scheduler.Worker, task intake.Task) error {
			time.Sleep(200 * time.Microsecond)
			mu.Lock()
			done[string(task.Payload())]++
			mu.Unlock()
			return nil
		},
	})
	eventually(t, 30*time.Second, func() bool { return w.Stats().Acked >= n/3 }, "a third acked")

	srv.stop()
	before := w.Stats()
	eventually(t, 10*time.Second, func() bool { return w.Stats().PollErrors >= 3 }, "polls fail while the server is down")
	// Down, the worker holds no task: only the slots of a poll about to
	// fail, released when it does.
	eventually(t, 10*time.Second, func() bool {
		s := w.Stats()
		return s.Slots.InUse == 0 && s.Settling == 0
	}, "tasks drained while down: %+v", w.Stats())
	require.Empty(t, l.Problems())

	srv.start()
	eventually(t, 60*time.Second, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(done) == n
	}, "every task done after the restart")
	eventually(t, 20*time.Second, func() bool { return streamMsgs(t, js, src.Config().Stream) == 0 }, "stream drained")
	require.NoError(t, w.Shutdown(context.Background()))

	dups := 0
	for _, k := range done {
		dups += k - 1
	}
	s := w.Stats()
	t.Logf("tasks %d, done %d, duplicates %d; poll errors %d, settle errors %d, redelivered %d; in flight at the stop: %d slots + %d settling",
		n, len(done), dups, s.PollErrors, s.SettleErrors, s.Redelivered, before.Slots.InUse+before.Slots.Reserved, before.Settling)
	require.LessOrEqual(t, dups, 2*maxSlots, "duplicates beyond what a worker holds (slots + settlements)")
	require.Empty(t, l.Problems())
	require.Zero(t, l.Stats().Out, "every permit released")
}
