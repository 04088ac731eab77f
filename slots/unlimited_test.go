package slots_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/weftrt/weft/slots"
)

func TestUnlimited(t *testing.T) {
	tr := slots.NewTracker(slots.Unlimited{})
	var held []slots.Permit
	for range 1000 {
		p, ok := tr.TryReserve("k")
		require.True(t, ok)
		held = append(held, p)
	}
	p, err := tr.Reserve(context.Background(), "k")
	require.NoError(t, err)
	require.NoError(t, tr.MarkUsed(p, slots.TaskInfo{Kind: "k"}))
	st := tr.Stats()
	assert.Equal(t, 1, st.InUse)
	assert.Equal(t, 1000, st.Reserved)
	assert.Equal(t, -1, st.Available)
	require.NoError(t, tr.Release(p, slots.TaskComplete()))
	for _, p := range held {
		require.NoError(t, tr.Release(p, slots.NeverUsed()))
	}
	assert.ErrorIs(t, tr.Release(p, slots.TaskComplete()), slots.ErrReleasedTwice)

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = tr.Reserve(ctx, "k")
	assert.ErrorIs(t, err, context.Canceled)
	assert.Zero(t, tr.Stats().Reserved)
}
