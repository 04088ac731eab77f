package weftjs_test

import (
	"context"
	"errors"
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

// ackOutcome collects what done hears for one ack, and how often.
type ackOutcome struct {
	calls atomic.Int32
	err   chan error
}

func newAckOutcome() *ackOutcome { return &ackOutcome{err: make(chan error, 2)} }

func (o *ackOutcome) done(err error) {
	o.calls.Add(1)
	o.err <- err
}

func (o *ackOutcome) wait(t *testing.T) error {
	t.Helper()
	select {
	case err := <-o.err:
		return err
	case <-time.After(10 * time.Second):
		t.Fatal("done was never called")
		return nil
	}
}

// An ack sent without waiting is settled by whatever comes back for it:
// the server's confirmation (an empty reply), a 503 when nobody takes the
// +ACK, nothing within the timeout, its context cancelled, or its source
// closed. Each ack's done hears exactly one of them, once.
func TestAsyncAckOutcomes(t *testing.T) {
	srv := startServer(t)
	js := connect(t, srv.url())
	nc := js.Conn()
	src := newSource(t, js, weftjs.Config{PollWait: 100 * time.Millisecond})
	closed := false
	defer func() {
		if !closed {
			src.Close()
		}
	}()

	// Stand-ins for a message's ack subject: one that confirms, as the
	// server does, and one that takes the +ACK and never answers.
	var acks atomic.Int32
	confirm, err := nc.Subscribe("test.ack.confirm", func(m *nats.Msg) {
		if string(m.Data) == "+ACK" {
			acks.Add(1)
			_ = m.Respond(nil)
		}
	})
	require.NoError(t, err)
	defer func() { _ = confirm.Unsubscribe() }()
	silent, err := nc.SubscribeSync("test.ack.silent")
	require.NoError(t, err)
	defer func() { _ = silent.Unsubscribe() }()
	require.NoError(t, nc.Flush())

	ok := newAckOutcome()
	weftjs.AckVia(context.Background(), src, "test.ack.confirm", 5*time.Second, ok.done)
	require.NoError(t, ok.wait(t), "confirmed")
	require.EqualValues(t, 1, acks.Load())

	nobody := newAckOutcome()
	weftjs.AckVia(context.Background(), src, "test.ack.nobody", 5*time.Second, nobody.done)
	require.ErrorIs(t, nobody.wait(t), nats.ErrNoResponders)

	late := newAckOutcome()
	weftjs.AckVia(context.Background(), src, "test.ack.silent", 50*time.Millisecond, late.done)
	require.ErrorIs(t, late.wait(t), context.DeadlineExceeded)

	ctx, cancel := context.WithCancel(context.Background())
	cancelled := newAckOutcome()
	weftjs.AckVia(ctx, src, "test.ack.silent", time.Minute, cancelled.done)
	cancel()
	require.ErrorIs(t, cancelled.wait(t), context.Canceled)

	already := newAckOutcome()
	weftjs.AckVia(ctx, src, "test.ack.confirm", time.Minute, already.done)
	require.ErrorIs(t, already.wait(t), context.Canceled, "a context that ended before: nothing sent")
	require.EqualValues(t, 1, acks.Load())

	pending := newAckOutcome()
	weftjs.AckVia(context.Background(), src, "test.ack.silent", time.Minute, pending.done)
	_, err = silent.NextMsg(10 * time.Second) // the +ACK went out and is pending
	require.NoError(t, err)
	src.Close()
	closed = true
	require.ErrorIs(t, pending.wait(t), weftjs.ErrSourceClosed)

	after := newAckOutcome()
	weftjs.AckVia(context.Background(), src, "test.ack.confirm", time.Minute, after.done)
	require.ErrorIs(t, after.wait(t), weftjs.ErrSourceClosed)

	// The source is closed and nothing is pending: no done can come again.
	for _, o := range []*ackOutcome{ok, nobody, late, cancelled, already, pending, after} {
		require.EqualValues(t, 1, o.calls.Load())
	}
}

// Many acks at once, confirmed in whatever order the replies come, each
// settle their own task: every done is called once, with nil.
func TestAsyncAcksInFlightTogether(t *testing.T) {
	srv := startServer(t)
	js := connect(t, srv.url())
	nc := js.Conn()
	src := newSource(t, js, weftjs.Config{PollWait: 100 * time.Millisecond})
	defer src.Close()
	// Replies held back and sent in reverse order.
	const n = 200
	var mu sync.Mutex
	var held []*nats.Msg
	all := make(chan struct{})
	sub, err := nc.Subscribe("test.ack.batch", func(m *nats.Msg) {
		mu.Lock()
		held = append(held, m)
		if len(held) == n {
			close(all)
		}
		mu.Unlock()
	})
	require.NoError(t, err)
	defer func() { _ = sub.Unsubscribe() }()
	require.NoError(t, nc.Flush())

	var calls, failures atomic.Int32
	var wg sync.WaitGroup
	wg.Add(n)
	for range n {
		weftjs.AckVia(context.Background(), src, "test.ack.batch", time.Minute, func(err error) {
			calls.Add(1)
			if err != nil {
				failures.Add(1)
			}
			wg.Done()
		})
	}
	<-all
	mu.Lock()
	for i := len(held) - 1; i >= 0; i-- {
		require.NoError(t, held[i].Respond(nil))
	}
	mu.Unlock()
	wg.Wait()
	require.EqualValues(t, n, calls.Load())
	require.Zero(t, failures.Load())
}

// An ack the server does not take (the consumer was deleted while the
// task ran: nobody listens on its ack subject any more) is a settlement
// error: reported with its cause, counted, and not counted as acked.
// Shutdown still returns once it is settled.
func TestAsyncAckFailureIsReported(t *testing.T) {
	srv := startServer(t)
	js := connect(t, srv.url())
	cfg := weftjs.Config{PollWait: 100 * time.Millisecond}
	newSource(t, js, cfg).Close() // creates the stream and the consumer
	// Bound only, so that polls do not create the consumer again under
	// the ack.
	cfg.BindOnly = true
	src := newSource(t, js, cfg)
	defer src.Close()
	publishN(t, js, src.Subject(), 0, 1)

	started := make(chan struct{})
	release := make(chan struct{})
	reported := make(chan error, 16)
	w := newWorker(t, intake.Config{
		Source:   src,
		Supplier: slots.NewFixed(1),
		OnError: func(err error) {
			select {
			case reported <- err:
			default:
			}
		},
		Handler: func(context.Context, intake.Task) error {
			close(started)
			<-release
			return nil
		},
	})
	<-started
	cfg = src.Config()
	require.NoError(t, js.DeleteConsumer(context.Background(), cfg.Stream, cfg.Consumer))
	close(release)
	var settle error
	eventually(t, 10*time.Second, func() bool {
		for {
			select {
			case err := <-reported:
				if errors.Is(err, nats.ErrNoResponders) {
					settle = err
					return true
				}
			default:
				return false
			}
		}
	}, "the failed ack reported")
	require.Contains(t, settle.Error(), "settling task")
	require.NoError(t, w.Shutdown(context.Background()))
	s := w.Stats()
	require.Zero(t, s.Acked)
	require.NotZero(t, s.SettleErrors)
	require.Zero(t, s.Settling)
}

// An ack waiting for its confirmation when its connection closes for good
// fails with nats.ErrConnectionClosed, without waiting out its timeout:
// a worker's Shutdown, which waits for its acks, returns.
func TestAsyncAckFailsWhenConnectionCloses(t *testing.T) {
	srv := startServer(t)
	js := connect(t, srv.url())
	silent, err := js.Conn().SubscribeSync("test.ack.silent")
	require.NoError(t, err)
	defer func() { _ = silent.Unsubscribe() }()
	require.NoError(t, js.Conn().Flush())

	other := connect(t, srv.url())
	src := newSource(t, other, weftjs.Config{PollWait: 100 * time.Millisecond})
	defer src.Close()
	pending := newAckOutcome()
	weftjs.AckVia(context.Background(), src, "test.ack.silent", time.Hour, pending.done)
	_, err = silent.NextMsg(10 * time.Second)
	require.NoError(t, err)
	other.Conn().Close()
	require.ErrorIs(t, pending.wait(t), nats.ErrConnectionClosed)
	require.EqualValues(t, 1, pending.calls.Load())
}
