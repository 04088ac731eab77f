package weftjs

import (
	"context"
	"testing"

	"github.com/nats-io/nats.go"
	natsjs "github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"
	"github.com/weftrt/weft/jetstream/natstest"
)

// startJS starts an embedded server for one internal test and connects
// to it; both end with the test.
func startJS(t *testing.T) (natsjs.JetStream, *nats.Conn) {
	t.Helper()
	srv, err := natstest.Start(t.Context(), natstest.Options{Dir: t.TempDir()})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, srv.Shutdown(context.Background())) })
	nc, err := nats.Connect(srv.URL())
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	js, err := natsjs.New(nc)
	require.NoError(t, err)
	return js, nc
}
