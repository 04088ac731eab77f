package weftjs

import (
	"context"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	natsjs "github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"
)

// The server's unpin names no pin: it lets go of whichever client holds
// the partition. A worker whose pin had lapsed (it paused or was cut off
// for longer than PinnedTTL) and that then let the partition go unpinned
// the new owner's pin, opening that owner's running keys to any other
// puller. unpin must let go only of its own pin.
func TestUnpinLeavesAnotherWorkersPin(t *testing.T) {
	js, nc := startJS(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	st, err := js.CreateStream(ctx, natsjs.StreamConfig{Name: "UNPIN", Subjects: []string{"unpin.>"}})
	require.NoError(t, err)
	const consumer = "C_p0"
	_, err = st.CreateConsumer(ctx, natsjs.ConsumerConfig{
		Durable: consumer, AckPolicy: natsjs.AckExplicitPolicy,
		PriorityPolicy: natsjs.PriorityPolicyPinned, PinnedTTL: time.Minute, PriorityGroups: []string{pinGroup},
	})
	require.NoError(t, err)
	_, err = js.Publish(ctx, "unpin.x", []byte("task"))
	require.NoError(t, err)

	// The new owner pulls and is pinned.
	owner := newPuller(nc, "UNPIN", consumer, func(*nats.Msg) {})
	owner.group = pinGroup
	defer owner.close()
	msgs, err := owner.pull(ctx, 1, time.Second)
	require.NoError(t, err)
	require.Len(t, msgs, 1)
	ownerPin := owner.getPin()
	require.NotEmpty(t, ownerPin)

	var reported []error
	k := &keyed{s: &Source{cfg: Config{OnError: func(err error) { reported = append(reported, err) }}}, stream: st}
	pinned := func() string {
		c, err := st.Consumer(ctx, consumer)
		require.NoError(t, err)
		for _, g := range c.CachedInfo().PriorityGroups {
			if g.Group == pinGroup {
				return g.PinnedClientID
			}
		}
		return ""
	}
	require.Equal(t, ownerPin, pinned())

	// The old owner still has the pin it held before it lapsed.
	old := &partition{consumer: consumer, puller: newPuller(nc, "UNPIN", consumer, nil)}
	old.puller.setPin("", "lapsed")
	k.unpin(ctx, old)
	require.Equal(t, ownerPin, pinned(), "a stale pin's unpin let go of the new owner's pin")
	require.Empty(t, old.puller.getPin(), "the stale pin is forgotten")

	// Its own pin, a worker still lets go of.
	mine := &partition{consumer: consumer, puller: newPuller(nc, "UNPIN", consumer, nil)}
	mine.puller.setPin("", ownerPin)
	k.unpin(ctx, mine)
	require.Empty(t, pinned(), "the holder's unpin did not let go")
	require.Empty(t, mine.puller.getPin())
	require.Empty(t, reported)
}
