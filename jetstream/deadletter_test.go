package weftjs_test

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/require"
	"github.com/weftrt/weft/intake"
	weftjs "github.com/weftrt/weft/jetstream"
	"github.com/weftrt/weft/slots"
)

// Tasks the worker gives up on land in the dead-letter stream (on by
// default, WEFT_TASKS_DEAD) with their payload, their headers, their
// delivery count and the reason; Replay puts them back, and once the
// handler is fixed they run. Every task is accounted for: acked, or in
// the dead-letter stream.
func TestGivenUpTasksAreDeadLetteredAndReplayed(t *testing.T) {
	const good, bad, maxDeliver = 50, 5, 4
	srv := startServer(t)
	js := connect(t, srv.url())
	src := newSource(t, js, weftjs.Config{PollWait: 100 * time.Millisecond, MaxDeliver: maxDeliver})
	defer src.Close()
	publishN(t, js, src.Subject(), 0, good)
	for i := range bad {
		m := nats.NewMsg(src.Subject())
		m.Data = []byte(fmt.Sprintf("bad-%d", i))
		m.Header = nats.Header{"Trace-Id": {fmt.Sprint("trace-", i)}}
		_, err := js.PublishMsg(context.Background(), m)
		require.NoError(t, err)
	}

	var mu sync.Mutex
	fixed := false
	handler := func(_ context.Context, task intake.Task) error {
		mu.Lock()
		defer mu.Unlock()
		if _, err := strconv.Atoi(string(task.Payload())); err != nil && !fixed {
			return fmt.Errorf("malformed payload %q", task.Payload())
		}
		return nil
	}
	w := newWorker(t, intake.Config{
		Source:        src,
		Supplier:      slots.NewFixed(8),
		MaxDeliveries: maxDeliver - 1,
		Backoff:       intake.Exponential(10*time.Millisecond, 20*time.Millisecond),
		OnError:       func(error) {},
		Handler:       handler,
	})
	eventually(t, 20*time.Second, func() bool { return w.Stats().Acked == good && w.Stats().Terminated == bad },
		"good acked, bad terminated")
	eventually(t, 10*time.Second, func() bool { return streamMsgs(t, js, src.Config().Stream) == 0 }, "stream drained")

	deadStream := src.Config().Stream + "_DEAD"
	require.EqualValues(t, bad, streamMsgs(t, js, deadStream), "every given-up task is in the dead-letter stream")
	ds, err := js.Stream(context.Background(), deadStream)
	require.NoError(t, err)
	for seq := uint64(1); seq <= bad; seq++ {
		rec, err := ds.GetMsg(context.Background(), seq)
		require.NoError(t, err)
		require.True(t, strings.HasPrefix(string(rec.Data), "bad-"), "payload %q", rec.Data)
		require.Equal(t, "trace-"+strings.TrimPrefix(string(rec.Data), "bad-"), rec.Header.Get("Trace-Id"), "the task's own headers are kept")
		require.Equal(t, strconv.Itoa(maxDeliver-1), rec.Header.Get(weftjs.HeaderDeadDeliveries))
		require.Contains(t, rec.Header.Get(weftjs.HeaderDeadReason), "malformed payload")
		require.Equal(t, src.Subject(), rec.Header.Get(weftjs.HeaderDeadSubject))
		require.Equal(t, src.Config().Stream, rec.Header.Get(weftjs.HeaderDeadStream))
	}
	require.EqualValues(t, bad, src.Stats().DeadLettered)

	mu.Lock()
	fixed = true
	mu.Unlock()
	n, err := weftjs.Replay(context.Background(), js, src.Config(), 0)
	require.NoError(t, err)
	require.Equal(t, bad, n)
	require.Zero(t, streamMsgs(t, js, deadStream))
	eventually(t, 10*time.Second, func() bool { return w.Stats().Acked == good+bad }, "replayed tasks acked")
	require.NoError(t, w.Shutdown(context.Background()))
	require.Zero(t, streamMsgs(t, js, src.Config().Stream))
}

// A dead-letter stream that cannot take the record (here: its subject
// belongs to no stream, as when it was deleted under a BindOnly source,
// which does not make it again) keeps the task: Terminate fails with
// ErrDeadLetter, nothing counts it as terminated, and the task stays in
// the work queue.
func TestTerminateKeepsTaskWhenDeadLetterFails(t *testing.T) {
	srv := startServer(t)
	js := connect(t, srv.url())
	cfg := weftjs.Config{PollWait: 100 * time.Millisecond, AckWait: time.Minute}
	newSource(t, js, cfg).Close() // makes the streams and the consumer
	cfg.BindOnly = true
	src := newSource(t, js, cfg)
	defer src.Close()
	require.NoError(t, js.DeleteStream(context.Background(), src.Config().DeadLetterStream))
	publishN(t, js, src.Subject(), 0, 1)

	var errs sync.Map
	w := newWorker(t, intake.Config{
		Source:   src,
		Supplier: slots.NewFixed(1),
		OnError: func(err error) {
			if errors.Is(err, weftjs.ErrDeadLetter) {
				errs.Store("dead", err)
			}
		},
		Handler: func(context.Context, intake.Task) error {
			return intake.Poison(errors.New("cannot be done"))
		},
	})
	eventually(t, 10*time.Second, func() bool { _, ok := errs.Load("dead"); return ok }, "ErrDeadLetter reported")
	require.NoError(t, w.Shutdown(context.Background()))
	require.Zero(t, w.Stats().Terminated, "a terminate the source refused is not counted")
	require.EqualValues(t, 1, streamMsgs(t, js, src.Config().Stream), "the task is kept")
}
