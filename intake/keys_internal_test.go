package intake

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// A key's tasks leave their line in the order they entered; only the
// first to enter an empty line may run at once.
func TestKeyLinesOrder(t *testing.T) {
	var k keyLines
	k.init()
	a1, a2, a3, b1 := &inflight{}, &inflight{}, &inflight{}, &inflight{}
	require.True(t, k.enter("a", a1))
	require.False(t, k.enter("a", a2))
	require.True(t, k.enter("b", b1), "another key is not held back")
	require.False(t, k.enter("a", a3))
	require.Same(t, a2, k.next("a"))
	require.Same(t, a3, k.next("a"))
	require.Nil(t, k.next("a"))
	require.Nil(t, k.next("b"))
	require.Empty(t, k.lines, "empty lines are dropped")
	require.True(t, k.enter("a", a1), "a key can start again")
}
