package weftjs_test

import (
	"context"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/weftrt/weft/intake"
	"github.com/weftrt/weft/intake/intaketest"
	weftjs "github.com/weftrt/weft/jetstream"
	"github.com/weftrt/weft/slots"
)

// Malformed payloads fail on every delivery: the worker returns them with
// NakWithDelay until the delivery before the consumer's MaxDeliver, then
// terminates them, which deletes them from the work queue. Handler panics
// on a first delivery are retried and succeed. Good tasks are untouched.
func TestMalformedPayloadsAndPanics(t *testing.T) {
	const good, bad, maxDeliver = 300, 10, 4
	srv := startServer(t)
	js := connect(t, srv.url())
	src := newSource(t, js, weftjs.Config{PollWait: 100 * time.Millisecond, MaxDeliver: maxDeliver})
	defer src.Close()
	publishN(t, js, src.Subject(), 0, good)
	for i := range bad {
		_, err := js.Publish(context.Background(), src.Subject(), []byte(fmt.Sprintf("garbage-%d", i)))
		require.NoError(t, err)
	}
	l := intaketest.NewLedger(8)
	w := newWorker(t, intake.Config{
		Source:        l.Source(src),
		Supplier:      l.Supplier(slots.NewFixed(8)),
		MaxDeliveries: maxDeliver - 1,
		Backoff:       intake.Exponential(10*time.Millisecond, 20*time.Millisecond),
		OnError:       func(error) {},
		Handler: func(_ context.Context, task intake.Task) error {
			n, err := strconv.Atoi(string(task.Payload()))
			if err != nil {
				return fmt.Errorf("malformed payload %q: %w", task.Payload(), err)
			}
			if n%7 == 0 && task.Deliveries() == 1 {
				panic(fmt.Sprintf("task %d: first delivery panics", n))
			}
			return nil
		},
	})
	eventually(t, 30*time.Second, func() bool { return streamMsgs(t, js, src.Config().Stream) == 0 },
		"stream drained (%d left)", streamMsgs(t, js, src.Config().Stream))
	eventually(t, 10*time.Second, func() bool { return w.Stats().Settling == 0 }, "settled")
	require.NoError(t, w.Shutdown(context.Background()))

	s := w.Stats()
	panics := (good + 6) / 7
	require.EqualValues(t, good, s.Acked)
	require.EqualValues(t, bad, s.Terminated)
	require.EqualValues(t, panics, s.Panics)
	require.EqualValues(t, panics+bad*(maxDeliver-1), s.Failed)
	require.EqualValues(t, panics+bad*(maxDeliver-2), s.Nacked)
	require.Empty(t, l.Problems())
	require.Zero(t, l.Stats().Out)
}
