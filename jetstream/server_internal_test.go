package weftjs

import (
	"testing"

	"github.com/nats-io/nats.go"
	natsjs "github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"
	"github.com/weftrt/weft/jetstream/internal/embedded"
)

// startJS starts an embedded server for one internal test and connects
// to it; both end with the test.
func startJS(t *testing.T) (natsjs.JetStream, *nats.Conn) {
	t.Helper()
	srv, err := embedded.Start(t.TempDir(), 0)
	require.NoError(t, err)
	t.Cleanup(func() { srv.Shutdown(); srv.WaitForShutdown() })
	nc, err := nats.Connect(srv.ClientURL())
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	js, err := natsjs.New(nc)
	require.NoError(t, err)
	return js, nc
}
