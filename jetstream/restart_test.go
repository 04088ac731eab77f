package weftjs_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	natsjs "github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"
	"github.com/weftrt/weft/intake"
	"github.com/weftrt/weft/intake/intaketest"
	weftjs "github.com/weftrt/weft/jetstream"
	"github.com/weftrt/weft/slots"
)

// The server goes away mid-run and a new one starts on the same port and
// store. While it is gone, polls fail and the worker backs off, releasing
// each failed poll's slots (none leaks: the ledger sees every one come
// back); the connection reconnects by itself; then every task completes.
// Tasks whose ack was lost with the server run again: counted, and bounded
// by the tasks in flight when it went.
func TestServerRestartMidRun(t *testing.T) {
	const n, maxSlots, maxSettling = 3000, 16, 32
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
		MaxSettling: maxSettling,
		PollBackoff: intake.Exponential(20*time.Millisecond, 200*time.Millisecond),
		OnError:     func(error) {},
		Handler: func(_ context.Context, task intake.Task) error {
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
	// Every task the server holds for the worker is acked...
	last := &natsjs.ConsumerInfo{} // printed as it is when the wait ends
	eventually(t, 20*time.Second, func() bool {
		*last = *consumerInfo(t, js, src.Config().Stream, src.Config().Consumer)
		return last.NumPending == 0 && last.NumAckPending == 0
	}, "consumer drained: %+v", last)
	// ...and what the stream still stores, the consumer counts as acked.
	// A standalone server can leave such a message when an ack comes in
	// while it shuts down (read in nats-server 2.15.2): stream.stop marks
	// the stream closed before it stops the stream's consumers, so the
	// consumer records the ack and the stream skips the removal; after
	// the restart, the check that reconciles the two runs before the
	// consumers are loaded (and periodically only when clustered). The
	// worker did its part: the task ran and its ack was taken.
	for seq, payload := range leftInStream(t, js, src.Config().Stream, src.Config().Consumer) {
		t.Logf("left by the server's shutdown: stream sequence %d, at or below the consumer's ack floor", seq)
		mu.Lock()
		require.Positive(t, done[payload], "task %q is left in the stream and never ran", payload)
		mu.Unlock()
	}
	require.NoError(t, w.Shutdown(context.Background()))

	dups := 0
	for _, k := range done {
		dups += k - 1
	}
	s := w.Stats()
	t.Logf("tasks %d, done %d, duplicates %d; poll errors %d, settle errors %d, redelivered %d; in flight at the stop: %d slots + %d settling",
		n, len(done), dups, s.PollErrors, s.SettleErrors, s.Redelivered, before.Slots.InUse+before.Slots.Reserved, before.Settling)
	require.LessOrEqual(t, dups, maxSlots+maxSettling, "duplicates beyond what a worker holds (slots + settlements)")
	require.Empty(t, l.Problems())
	require.Zero(t, l.Stats().Out, "every permit released")
}

// leftInStream returns the payloads the stream still stores, by
// sequence, once its consumer has nothing pending, and fails the test
// unless each is at or below the consumer's ack floor: acked as far as
// the consumer knows.
func leftInStream(t *testing.T, js natsjs.JetStream, stream, consumer string) map[uint64]string {
	t.Helper()
	s, state := streamState(t, js, stream)
	if state.Msgs == 0 {
		return nil
	}
	c := consumerInfo(t, js, stream, consumer)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	left := map[uint64]string{}
	for seq := state.FirstSeq; seq <= state.LastSeq; seq++ {
		m, err := s.GetMsg(ctx, seq)
		if errors.Is(err, natsjs.ErrMsgNotFound) {
			continue
		}
		require.NoError(t, err)
		require.LessOrEqual(t, seq, c.AckFloor.Stream, "stream sequence %d is stored and not acked: %+v", seq, c)
		left[seq] = string(m.Data)
	}
	return left
}
