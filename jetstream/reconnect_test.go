package weftjs_test

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	natsjs "github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"
	"github.com/weftrt/weft/intake"
	weftjs "github.com/weftrt/weft/jetstream"
	"github.com/weftrt/weft/slots"
)

// After a server restart (same port and store) the client reconnects
// within a fraction of a second, and polling resumes with it: a task
// published once the connection is back is acked before the client's
// request timeout (5s), which a lookup stuck on the dying connection, or
// a pull request lost with it, used to wait out. PollWait is the
// default, 5s, as in production. The guard is the only clock here: it is
// the bound, with room.
func TestPollingResumesPromptlyAfterRestart(t *testing.T) {
	srv := startServer(t)
	// A JetStream API timeout of a minute: a lookup that waited out the
	// client's timeout while holding the pollers' lock (what the worker
	// used to do after every restart) now stalls polling for a minute,
	// far past the guard below, while the source's own bounded lookups
	// resume polling within a second or two of the reconnection. The
	// guard tells the two apart without depending on this machine's speed.
	js, err := natsjs.New(connect(t, srv.url()).Conn(), natsjs.WithDefaultTimeout(time.Minute))
	require.NoError(t, err)
	src := newSource(t, js, weftjs.Config{})
	defer src.Close()
	w := newWorker(t, intake.Config{
		Source:      src,
		Supplier:    slots.NewFixed(4),
		PollBackoff: intake.Exponential(20*time.Millisecond, 100*time.Millisecond),
		OnError:     func(error) {},
		Handler:     func(context.Context, intake.Task) error { return nil },
	})
	publishN(t, js, src.Subject(), 0, 10)
	eventually(t, 10*time.Second, func() bool { return w.Stats().Acked == 10 }, "first tasks acked")

	for round := range 3 {
		// The pollers are in a long poll when the server goes.
		eventually(t, 10*time.Second, func() bool { return w.Stats().Slots.Reserved > 0 }, "a poll in flight")
		srv.stop()
		eventually(t, 10*time.Second, func() bool { return !js.Conn().IsConnected() }, "disconnected")
		srv.start()
		eventually(t, 10*time.Second, func() bool { return js.Conn().IsConnected() }, "reconnected")
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		_, err := js.Publish(ctx, src.Subject(), []byte("after"))
		cancel()
		require.NoError(t, err)
		want := uint64(11 + round)
		eventually(t, 20*time.Second, func() bool { return w.Stats().Acked == want }, "round %d: the task published after the restart acked before the client's timeout", round)
	}
	require.NoError(t, w.Shutdown(context.Background()))
}

// A worker whose NewSource starts a moment before the server (both
// started together in a deployment) waits for it within its context
// instead of failing at once.
func TestNewSourceWaitsForTheServer(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	port := l.Addr().(*net.TCPAddr).Port
	require.NoError(t, l.Close())

	srv := &natsServer{t: t, dir: t.TempDir(), port: port}
	t.Cleanup(srv.stop)
	// A connection made with RetryOnFailedConnect, so that it exists
	// before the server does (weftjs.ConnectContext would instead wait
	// for the server before NewSource is called).
	nc, err := nats.Connect(srv.url(), nats.RetryOnFailedConnect(true), nats.MaxReconnects(-1),
		nats.ReconnectWait(50*time.Millisecond), nats.ReconnectBufSize(-1))
	require.NoError(t, err)
	defer nc.Close()
	js, err := natsjs.New(nc)
	require.NoError(t, err)

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	type result struct {
		src *weftjs.Source
		err error
	}
	done := make(chan result, 1)
	go func() {
		src, err := weftjs.NewSource(ctx, js, weftjs.Config{})
		done <- result{src, err}
	}()
	// NewSource has failed at least once against no server...
	select {
	case r := <-done:
		if r.src != nil {
			r.src.Close()
		}
		t.Fatalf("NewSource returned before the server started: %v", r.err)
	case <-time.After(300 * time.Millisecond):
	}
	// ...and succeeds once the server is up, within its context.
	srv.start()
	r := <-done
	require.NoError(t, r.err)
	defer r.src.Close()
	require.NoError(t, r.src.Publish(ctx, []byte("x")))
	require.EqualValues(t, 1, streamMsgs(t, js, r.src.Config().Stream))
}
