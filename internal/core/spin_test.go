package core

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestLoopFlagNests: the flag idle workers read is set from the outermost
// EnterLoop to its LeaveLoop, nested loops included, and the pool's hint
// holds while any worker's is set.
func TestLoopFlagNests(t *testing.T) {
	p := &Pool{}
	a, b := &Worker{pool: p}, &Worker{pool: p}
	p.workers = []*Worker{a, b}
	assert.False(t, p.anyLooping())
	b.EnterLoop()
	assert.True(t, b.Looping())
	assert.True(t, p.anyLooping())
	b.EnterLoop() // a loop nested in a chunk
	b.LeaveLoop()
	assert.True(t, b.Looping(), "the outer loop still runs")
	assert.False(t, a.Looping())
	b.LeaveLoop()
	assert.False(t, b.Looping())
	assert.False(t, p.anyLooping())
}
