package weftjs_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	natsjs "github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"
	"github.com/weftrt/weft/intake"
	weftjs "github.com/weftrt/weft/jetstream"
	"github.com/weftrt/weft/slots"
)

// The credentials are rotated under a running worker: the server drops
// the connection, nats.go's reconnects are refused, and it closes the
// connection for good. The worker must not poll a closed connection
// forever: the error hook hears why, and Run returns an error that wraps
// ErrConnClosed and the authorization violation, so that a supervisor
// can start a new worker.
func TestRunEndsWhenTheConnectionClosesForGood(t *testing.T) {
	opts := &server.Options{
		Host: "127.0.0.1", Port: server.RANDOM_PORT, JetStream: true, StoreDir: t.TempDir(),
		NoLog: true, NoSigs: true, Username: "worker", Password: "old",
	}
	srv, err := server.NewServer(opts)
	require.NoError(t, err)
	srv.Start()
	t.Cleanup(func() { srv.Shutdown(); srv.WaitForShutdown() })
	require.True(t, srv.ReadyForConnections(10*time.Second))

	nc, err := nats.Connect(srv.ClientURL(), nats.UserInfo("worker", "old"),
		nats.MaxReconnects(-1), nats.ReconnectWait(20*time.Millisecond), nats.ReconnectBufSize(-1),
		nats.ErrorHandler(func(*nats.Conn, *nats.Subscription, error) {}))
	require.NoError(t, err)
	defer nc.Close()
	js, err := natsjs.New(nc)
	require.NoError(t, err)
	src := newSource(t, js, weftjs.Config{PollWait: 100 * time.Millisecond})
	defer src.Close()
	publishN(t, js, src.Subject(), 0, 5)

	var acked atomic.Int64
	var heard atomic.Value
	done := make(chan error, 1)
	go func() {
		done <- weftjs.Run(context.Background(), src, intake.Config{
			Supplier:    slots.NewFixed(2),
			PollBackoff: intake.Exponential(10*time.Millisecond, 50*time.Millisecond),
			OnError: func(err error) {
				if errors.Is(err, weftjs.ErrConnClosed) {
					heard.Store(err)
				}
			},
			Handler: func(context.Context, intake.Task) error {
				acked.Add(1)
				return nil
			},
		}, 5*time.Second)
	}()
	eventually(t, 10*time.Second, func() bool { return acked.Load() == 5 }, "tasks run")

	// Rotate the password: the server closes the worker's connection, and
	// refuses it when it comes back.
	rotated := opts.Clone()
	rotated.Password = "new"
	require.NoError(t, srv.ReloadOptions(rotated))

	var runErr error
	select {
	case runErr = <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("Run did not return once the connection was closed for good")
	}
	require.ErrorIs(t, runErr, weftjs.ErrConnClosed)
	require.ErrorIs(t, runErr, nats.ErrAuthorization, "the error names the cause: %v", runErr)
	require.True(t, nc.IsClosed())
	if err, ok := heard.Load().(error); ok { // a poll may not have run between the close and Run's return
		require.ErrorIs(t, err, nats.ErrAuthorization)
	}
}
