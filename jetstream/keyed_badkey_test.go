package weftjs_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	natsjs "github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	weftjs "github.com/weftrt/weft/jetstream"
)

// noSend is a JetStream handle that fails the test if anything is
// published through it (its other methods are nil: calling one panics).
type noSend struct {
	natsjs.JetStream
	t *testing.T
}

func (j noSend) PublishMsg(context.Context, *nats.Msg, ...natsjs.PublishOpt) (*natsjs.PubAck, error) {
	j.t.Error("PublishMsg called")
	return nil, nil
}

func (j noSend) PublishMsgAsync(*nats.Msg, ...natsjs.PublishOpt) (natsjs.PubAckFuture, error) {
	j.t.Error("PublishMsgAsync called")
	return nil, nil
}

// An empty key, or one past MaxKeyLen, is refused with ErrBadKey and a
// message that says what is wrong (the empty one: use Publish), before
// anything is sent. Before, the error was an "invalid config" (ErrConfig).
func TestPublishKeyedRefusesBadKeys(t *testing.T) {
	js := noSend{t: t}
	for _, tt := range []struct {
		key, want string
	}{
		{"", "the key is empty (publish a task without a key with Publish"},
		{strings.Repeat("k", weftjs.MaxKeyLen+1), "key of 1025 bytes: want at most MaxKeyLen (1024) bytes"},
	} {
		_, err := weftjs.PublishKeyed(context.Background(), js, "tasks.k", tt.key, []byte("x"))
		require.ErrorIs(t, err, weftjs.ErrBadKey)
		assert.NotErrorIs(t, err, weftjs.ErrConfig)
		assert.ErrorContains(t, err, tt.want)
		assert.NotContains(t, err.Error(), "invalid config")
		_, err = weftjs.PublishKeyedAsync(js, "tasks.k", tt.key, []byte("x"))
		require.ErrorIs(t, err, weftjs.ErrBadKey)
		assert.ErrorContains(t, err, tt.want)
	}
}

// Source.PublishKey refuses an empty key the same way, and stores
// nothing.
func TestPublishKeyRefusesEmptyKey(t *testing.T) {
	srv := startServer(t)
	js := connect(t, srv.url())
	ctx := context.Background()
	src := newSource(t, js, weftjs.Config{Stream: "EMPTYKEY", Partitions: 2, AckWait: time.Second, PollWait: 100 * time.Millisecond})
	defer src.Close()
	err := src.PublishKey(ctx, "", []byte("x"))
	require.ErrorIs(t, err, weftjs.ErrBadKey)
	assert.ErrorContains(t, err, "the key is empty")
	stream, err := js.Stream(ctx, "EMPTYKEY")
	require.NoError(t, err)
	info, err := stream.Info(ctx)
	require.NoError(t, err)
	assert.Zero(t, info.State.Msgs, "nothing stored")
}
