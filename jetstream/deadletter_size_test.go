package weftjs_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/require"
	"github.com/weftrt/weft/intake"
	weftjs "github.com/weftrt/weft/jetstream"
	"github.com/weftrt/weft/slots"
)

// A task that takes up nearly all of the server's max_payload leaves no
// room for the dead-letter headers in a record of its own. It is still
// dead-lettered, not lost and not left to cycle: its payload goes into
// part records, the record that names them carries the headers, and
// Replay puts the task back whole, byte for byte, with its own headers.
func TestTaskNearMaxPayloadIsDeadLetteredInPartsAndReplayed(t *testing.T) {
	srv := startServer(t)
	js := connect(t, srv.url())
	src := newSource(t, js, weftjs.Config{PollWait: 100 * time.Millisecond, AckWait: time.Minute})
	defer src.Close()
	maxPayload := int(js.Conn().MaxPayload())

	payload := make([]byte, maxPayload-64) // with its header, a few bytes short of the limit
	for i := range payload {
		payload[i] = byte(i * 7)
	}
	m := nats.NewMsg(src.Subject())
	m.Data = payload
	m.Header = nats.Header{"Trace-Id": {"big-one"}}
	_, err := js.PublishMsg(context.Background(), m)
	require.NoError(t, err, "the task itself fits")

	var fixed atomic.Bool
	var errs []error
	var mu sync.Mutex
	w := newWorker(t, intake.Config{
		Source:   src,
		Supplier: slots.NewFixed(1),
		OnError: func(err error) {
			mu.Lock()
			errs = append(errs, err)
			mu.Unlock()
		},
		Handler: func(_ context.Context, task intake.Task) error {
			if fixed.Load() {
				if !bytes.Equal(task.Payload(), payload) {
					return intake.Poison(errors.New("replayed payload differs"))
				}
				return nil
			}
			return intake.Poison(errors.New(strings.Repeat("a long reason ", 100)))
		},
	})
	eventually(t, 20*time.Second, func() bool { return w.Stats().Terminated == 1 }, "the big task terminated")
	mu.Lock()
	require.Empty(t, errs, "dead-lettering it went through the first time")
	mu.Unlock()
	require.Zero(t, streamMsgs(t, js, src.Config().Stream), "terminated: gone from the work queue")
	require.EqualValues(t, 1, src.Stats().DeadLettered)

	deadStream := src.Config().DeadLetterStream
	require.Greater(t, streamMsgs(t, js, deadStream), uint64(1), "the record and its parts")
	ds, err := js.Stream(context.Background(), deadStream)
	require.NoError(t, err)
	info, err := ds.Info(context.Background())
	require.NoError(t, err)
	head, err := ds.GetMsg(context.Background(), info.State.LastSeq)
	require.NoError(t, err)
	require.NotEmpty(t, head.Header.Get(weftjs.HeaderDeadParts), "the last record names its parts")
	require.Equal(t, "big-one", head.Header.Get("Trace-Id"), "the task's own headers are on the record")
	require.Contains(t, head.Header.Get(weftjs.HeaderDeadReason), "a long reason", "and so is the reason")
	require.Empty(t, head.Data)

	fixed.Store(true)
	n, err := weftjs.Replay(context.Background(), js, src.Config(), 0)
	require.NoError(t, err)
	require.Equal(t, 1, n, "one task replayed, its parts not counted as tasks")
	require.Zero(t, streamMsgs(t, js, deadStream), "the record and its parts are deleted")
	eventually(t, 10*time.Second, func() bool { return w.Stats().Acked == 1 }, "the replayed task acked")
	require.NoError(t, w.Shutdown(context.Background()))
	require.EqualValues(t, 1, w.Stats().Terminated, "the replayed task ran whole: not poisoned again")
}

// A task whose own headers leave no room for the dead-letter headers
// cannot be dead-lettered in any form: it is not terminated (it stays in
// the work queue, to come back after AckWait), and the error hook is
// told why, with the sizes.
func TestTaskTooLargeToDeadLetterIsKeptAndReported(t *testing.T) {
	srv := startServer(t)
	js := connect(t, srv.url())
	src := newSource(t, js, weftjs.Config{PollWait: 100 * time.Millisecond, AckWait: time.Minute})
	defer src.Close()

	m := nats.NewMsg(src.Subject())
	m.Data = []byte("small")
	// JetStream stores at most 65535 bytes of headers with a message: the
	// task's take nearly all of them.
	m.Header = nats.Header{"Blob": {strings.Repeat("h", 65535-200)}}
	_, err := js.PublishMsg(context.Background(), m)
	require.NoError(t, err, "the task itself fits")

	reported := make(chan error, 16)
	w := newWorker(t, intake.Config{
		Source:   src,
		Supplier: slots.NewFixed(1),
		OnError: func(err error) {
			if errors.Is(err, weftjs.ErrDeadLetter) {
				select {
				case reported <- err:
				default:
				}
			}
		},
		Handler: func(context.Context, intake.Task) error {
			return intake.Poison(errors.New("cannot be done"))
		},
	})
	var got error
	eventually(t, 10*time.Second, func() bool {
		select {
		case got = <-reported:
			return true
		default:
			return false
		}
	}, "ErrDeadLetter reported")
	require.NoError(t, w.Shutdown(context.Background()))
	require.ErrorIs(t, got, weftjs.ErrRecordTooLarge)
	require.Contains(t, got.Error(), "bytes of headers")
	require.Zero(t, w.Stats().Terminated, "not terminated")
	require.EqualValues(t, 1, streamMsgs(t, js, src.Config().Stream), "the task is kept")
	require.Zero(t, streamMsgs(t, js, src.Config().DeadLetterStream), "no part of it was stored")
}
