package weftjs

import (
	"errors"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/require"
)

// A consumer that stays empty is skipped longer after each empty pull, up
// to drainedMax; a failed pull says nothing about the consumer and leaves
// the count alone, and a pull that brings a message starts it over.
func TestEmptyPullsLengthenTheSkip(t *testing.T) {
	k := &keyed{s: &Source{}}
	p := &partition{index: 0}
	ms := time.Millisecond
	for i, want := range []time.Duration{2 * ms, 4 * ms, 8 * ms, 16 * ms, 16 * ms, 16 * ms} {
		require.Equal(t, want, p.skipFor(), "after %d empty pulls", i)
		p.busy = true
		k.admit(p, nil, nil, 1)
		require.False(t, p.drainedAt.IsZero(), "an empty pull marks the consumer drained")
		require.False(t, p.busy, "admit ends the pull")
	}
	k.admit(p, nil, errors.New("no answer"), 1)
	require.Equal(t, 6, p.emptyPulls, "a failed pull")
	require.Equal(t, drainedMax, p.skipFor())

	k.admit(p, []*nats.Msg{{Subject: "not.a.task"}}, nil, 1)
	require.Zero(t, p.emptyPulls, "a pull that brought a message")
	require.Equal(t, drainedFor, p.skipFor())
	require.Equal(t, uint64(1), k.s.Stats().SetAside)
}
