package weftjs_test

import (
	"context"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	natsjs "github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"
	"github.com/weftrt/weft/intake"
	"github.com/weftrt/weft/intake/intaketest"
	weftjs "github.com/weftrt/weft/jetstream"
	"github.com/weftrt/weft/jetstream/natstest"
	"github.com/weftrt/weft/scheduler"
)

// natsServer is an embedded server that a test can restart on the same
// port and store.
type natsServer struct {
	t    testing.TB
	dir  string
	port int
	srv  *natstest.Server
}

func startServer(t testing.TB) *natsServer {
	t.Helper()
	s := &natsServer{t: t, dir: t.TempDir()}
	s.start()
	t.Cleanup(s.stop)
	return s
}

func (s *natsServer) start() {
	s.t.Helper()
	srv, err := natstest.Start(context.Background(), natstest.Options{Dir: s.dir, Port: s.port})
	require.NoError(s.t, err)
	s.srv, s.port = srv, srv.Port()
}

func (s *natsServer) stop() {
	if s.srv != nil {
		require.NoError(s.t, s.srv.Shutdown(context.Background()))
		s.srv = nil
	}
}

func (s *natsServer) url() string { return fmt.Sprintf("nats://127.0.0.1:%d", s.port) }

// connect returns a JetStream context on a connection closed when the
// test ends.
func connect(t testing.TB, url string, opts ...nats.Option) natsjs.JetStream {
	t.Helper()
	nc, err := weftjs.Connect(url, opts...)
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	js, err := natsjs.New(nc)
	require.NoError(t, err)
	return js
}

func newSource(t testing.TB, js natsjs.JetStream, cfg weftjs.Config) *weftjs.Source {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	src, err := weftjs.NewSource(ctx, js, cfg)
	require.NoError(t, err)
	return src
}

// publishN publishes payloads "from" .. "from+n-1", a batch of async
// publishes at a time.
func publishN(t testing.TB, js natsjs.JetStream, subject string, from, n int) {
	t.Helper()
	publishBatched(t, from, from+n, func(i int) (natsjs.PubAckFuture, error) {
		return js.PublishAsync(subject, []byte(strconv.Itoa(i)))
	})
}

// publishBatched calls publish(i) for i in [from, to), a window of async
// publishes at a time, and waits for each window's acknowledgements.
func publishBatched(t testing.TB, from, to int, publish func(i int) (natsjs.PubAckFuture, error)) {
	t.Helper()
	const window = 256
	for lo := from; lo < to; lo += window {
		var acks []natsjs.PubAckFuture
		for i := lo; i < min(lo+window, to); i++ {
			f, err := publish(i)
			require.NoError(t, err)
			acks = append(acks, f)
		}
		for _, f := range acks {
			select {
			case <-f.Ok():
			case err := <-f.Err():
				require.NoError(t, err)
			case <-time.After(10 * time.Second):
				t.Fatal("publish not acknowledged")
			}
		}
	}
}

// streamMsgs returns the messages left in the stream.
func streamMsgs(t testing.TB, js natsjs.JetStream, stream string) uint64 {
	t.Helper()
	_, state := streamState(t, js, stream)
	return state.Msgs
}

// streamState returns a handle on the stream and its state now.
func streamState(t testing.TB, js natsjs.JetStream, stream string) (natsjs.Stream, natsjs.StreamState) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	s, err := js.Stream(ctx, stream)
	require.NoError(t, err)
	info, err := s.Info(ctx)
	require.NoError(t, err)
	return s, info.State
}

func newPool(t testing.TB, workers int) *scheduler.Pool { return intaketest.NewPool(t, workers) }

func newWorker(t testing.TB, cfg intake.Config) *intake.Worker {
	return intaketest.NewWorker(t, cfg, 20*time.Second)
}

func eventually(t testing.TB, d time.Duration, cond func() bool, what string, args ...any) {
	t.Helper()
	intaketest.Eventually(t, d, cond, what, args...)
}

// consumerInfo returns what the server has on a durable consumer now.
func consumerInfo(t testing.TB, js natsjs.JetStream, stream, consumer string) *natsjs.ConsumerInfo {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := js.Consumer(ctx, stream, consumer)
	require.NoError(t, err)
	info, err := c.Info(ctx)
	require.NoError(t, err)
	return info
}
