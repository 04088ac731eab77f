package weftjs_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/weftrt/weft/intake"
	weftjs "github.com/weftrt/weft/jetstream"
	"github.com/weftrt/weft/slots"
)

// poisonAll runs a worker on src that terminates every task, until want
// tasks are terminated.
func poisonAll(t *testing.T, src *weftjs.Source, want uint64) {
	t.Helper()
	w := newWorker(t, intake.Config{
		Source: src, Supplier: slots.NewFixed(1), OnError: func(error) {},
		Handler: func(context.Context, intake.Task) error {
			return intake.Poison(errors.New("poison"))
		},
	})
	eventually(t, 10*time.Second, func() bool { return w.Stats().Terminated == want }, "terminated")
	require.NoError(t, w.Shutdown(context.Background()))
}

// The work stream is deleted and made again (an operator resetting it),
// which starts its sequences over; the dead-letter stream stays. A task
// terminated on the new stream within the dead-letter stream's
// duplicate window (2 minutes) has the sequence of one terminated on the
// old one: its record must be stored, not taken for a duplicate of the
// other's while the +TERM deletes the task.
func TestDeadLetterAfterStreamRecreatedKeepsEveryTask(t *testing.T) {
	srv := startServer(t)
	js := connect(t, srv.url())
	cfg := weftjs.Config{PollWait: 100 * time.Millisecond}
	src := newSource(t, js, cfg)
	publishN(t, js, src.Subject(), 0, 1)
	poisonAll(t, src, 1)
	src.Close()
	require.NoError(t, js.DeleteStream(context.Background(), src.Config().Stream))

	src2 := newSource(t, js, cfg)
	defer src2.Close()
	publishN(t, js, src2.Subject(), 1, 1)
	poisonAll(t, src2, 1)
	require.Zero(t, streamMsgs(t, js, src2.Config().Stream))
	require.EqualValues(t, 2, streamMsgs(t, js, src2.Config().DeadLetterStream), "both terminated tasks are in the dead-letter stream")
}
