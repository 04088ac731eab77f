package natstest_test

import (
	"context"
	"fmt"
	"net"
	"syscall"
	"testing"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"
	"github.com/weftrt/weft/jetstream/natstest"
)

// connect returns a JetStream context on url, closed when the test ends.
func connect(t *testing.T, url string) jetstream.JetStream {
	t.Helper()
	nc, err := nats.Connect(url)
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	require.NoError(t, err)
	return js
}

// The zero Options give a JetStream server on a free port, its store in
// a temporary directory that Shutdown removes; a second Shutdown does
// nothing more.
func TestStartAndShutdown(t *testing.T) {
	ctx := t.Context()
	srv, err := natstest.Start(ctx, natstest.Options{})
	require.NoError(t, err)
	require.NotZero(t, srv.Port())
	require.DirExists(t, srv.Dir())

	js := connect(t, srv.URL())
	_, err = js.CreateStream(ctx, jetstream.StreamConfig{Name: "JOBS", Subjects: []string{"jobs.>"}})
	require.NoError(t, err)
	_, err = js.Publish(ctx, "jobs.one", []byte("x"))
	require.NoError(t, err)

	require.NoError(t, srv.Shutdown(context.Background()))
	require.NoDirExists(t, srv.Dir())
	require.NoError(t, srv.Shutdown(context.Background()))
}

// A server started on the Dir and Port of one shut down finds its
// streams, and Shutdown leaves an Options.Dir in place.
func TestRestartOnDirAndPort(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	srv, err := natstest.Start(ctx, natstest.Options{Dir: dir})
	require.NoError(t, err)
	js := connect(t, srv.URL())
	_, err = js.CreateStream(ctx, jetstream.StreamConfig{Name: "JOBS", Subjects: []string{"jobs.>"}})
	require.NoError(t, err)
	require.NoError(t, srv.Shutdown(context.Background()))
	require.DirExists(t, dir)

	again, err := natstest.Start(ctx, natstest.Options{Dir: dir, Port: srv.Port()})
	require.NoError(t, err)
	defer func() { require.NoError(t, again.Shutdown(context.Background())) }()
	require.Equal(t, srv.URL(), again.URL())
	_, err = connect(t, again.URL()).Stream(ctx, "JOBS")
	require.NoError(t, err)
}

// A port that is taken is an error naming it and the system's cause, at
// once: the server itself would only never become ready.
func TestStartOnTakenPort(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	port := l.Addr().(*net.TCPAddr).Port

	srv, err := natstest.Start(t.Context(), natstest.Options{Port: port})
	require.Nil(t, srv)
	require.ErrorIs(t, err, syscall.EADDRINUSE)
	require.ErrorContains(t, err, fmt.Sprintf("port %d", port))
}

// Options that cannot work, and a context already ended, are errors
// before anything starts.
func TestStartRefuses(t *testing.T) {
	for _, port := range []int{-1, 65536} {
		_, err := natstest.Start(t.Context(), natstest.Options{Port: port})
		require.ErrorContains(t, err, fmt.Sprintf("Port %d", port))
	}

	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err := natstest.Start(ctx, natstest.Options{})
	require.ErrorIs(t, err, context.Canceled)
}
