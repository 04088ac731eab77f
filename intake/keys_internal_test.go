package intake

import (
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

// A key's tasks leave their line in the order they entered; only the
// first to enter an empty line may run at once.
func TestKeyLinesOrder(t *testing.T) {
	var k keyLines
	k.init(&pollClock{})
	a1, a2, a3, b1 := &delivery{}, &delivery{}, &delivery{}, &delivery{}
	require.True(t, k.enter("a", a1))
	require.False(t, k.enter("a", a2))
	require.True(t, k.enter("b", b1), "another key is not held back")
	require.False(t, k.enter("a", a3))
	require.Same(t, a2, k.next("a", false))
	require.Same(t, a3, k.next("a", false))
	require.Nil(t, k.next("a", false))
	require.Nil(t, k.next("b", false))
	require.Empty(t, k.lines, "empty lines are dropped")
	require.Empty(t, k.fences, "a line that ran to its end leaves no fence")
	require.True(t, k.enter("a", a1), "a key can start again")
	for _, r := range []*delivery{a1, a2, a3, b1} {
		require.False(t, r.back)
	}
}

// Once a key's line ends with a hand-back, a task of the key from a poll
// that began before then must go back too; one from a later poll may run.
// Other keys are not held back.
func TestKeyFenceStopsOlderPolls(t *testing.T) {
	var c pollClock
	var k keyLines
	k.init(&c)
	p1, p2 := c.begin(), c.begin()
	a := &delivery{poll: p1}
	require.True(t, k.enter("k", a))
	require.Nil(t, k.next("k", true), "a went back: the line ends fenced")

	b := &delivery{poll: p2} // p2 began before a was back
	require.True(t, k.enter("k", b))
	require.True(t, b.back, "a task of a poll older than the fence must go back")
	require.Nil(t, k.next("k", true))

	other := &delivery{poll: p1}
	require.True(t, k.enter("o", other))
	require.False(t, other.back, "another key's task is not fenced")
	require.Nil(t, k.next("o", false))

	p3 := c.begin() // after the fence
	d := &delivery{poll: p3}
	require.True(t, k.enter("k", d))
	require.False(t, d.back, "a task of a poll begun after the fence runs")
	require.Nil(t, k.next("k", false))
}

// Fences no open poll can meet are dropped once there are enough of them;
// while a poll they can stop is open, they stay.
func TestKeyFencesArePruned(t *testing.T) {
	var c pollClock
	var k keyLines
	k.init(&c)
	fence := func(key string) {
		p := c.begin()
		require.True(t, k.enter(key, &delivery{poll: p}))
		c.end(p)
		require.Nil(t, k.next(key, true))
	}
	old := c.begin()
	require.True(t, k.enter("held", &delivery{poll: old}))
	require.Nil(t, k.next("held", true))
	for i := range 4 * minPrune {
		fence(strconv.Itoa(i))
	}
	require.Len(t, k.fences, 4*minPrune+1, "poll old is open: every fence may still stop one of its tasks")
	r := &delivery{poll: old}
	require.True(t, k.enter("held", r))
	require.True(t, r.back)
	k.next("held", false)

	c.end(old)
	for i := range 4 * minPrune {
		fence("after" + strconv.Itoa(i))
	}
	require.Less(t, len(k.fences), 2*minPrune, "with no old poll open, the fences are pruned as they grow")
	require.NotContains(t, k.fences, "held")
}
