package weftjs_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	weftjs "github.com/weftrt/weft/jetstream"
)

// A closed source hands out no task and stores none: Poll, Publish and
// PublishKey fail with ErrClosed, with or without partitions, even with
// tasks in the stream. Before, Poll returned a task whose ack could not be
// sent (so it ran again), and Publish returned nil.
func TestClosedSourceRefusesPollAndPublish(t *testing.T) {
	srv := startServer(t)
	js := connect(t, srv.url())
	ctx := context.Background()
	for _, parts := range []int{0, 2} {
		stream := "CLOSED_UNKEYED"
		if parts > 0 {
			stream = "CLOSED_KEYED"
		}
		src := newSource(t, js, weftjs.Config{Stream: stream, Partitions: parts, AckWait: time.Second, PollWait: 100 * time.Millisecond})
		require.NoError(t, src.Publish(ctx, []byte("before")))
		if parts > 0 {
			require.NoError(t, src.PublishKey(ctx, "k", []byte("before")))
		}
		src.Close()

		tasks, err := src.Poll(ctx, 10)
		require.ErrorIs(t, err, weftjs.ErrClosed, "Poll, %d partitions", parts)
		assert.Empty(t, tasks)
		assert.ErrorContains(t, err, "Poll on stream "+stream+" after Close")
		assert.ErrorIs(t, src.Publish(ctx, []byte("after")), weftjs.ErrClosed, "Publish, %d partitions", parts)
		assert.ErrorIs(t, src.PublishKey(ctx, "k", []byte("after")), weftjs.ErrClosed, "PublishKey, %d partitions", parts)
		info, err := js.Stream(ctx, stream)
		require.NoError(t, err)
		stored := uint64(1 + min(parts, 1))
		assert.Equal(t, stored, info.CachedInfo().State.Msgs, "nothing stored after Close, nothing taken")
		src.Close() // a second Close does nothing
	}
}
