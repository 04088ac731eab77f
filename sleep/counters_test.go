package sleep

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLayout(t *testing.T) {
	assert.Equal(t, 64, jecShift+jecBits, "the fields fill the word")
	assert.Equal(t, 32, jecBits, "the JEC is a jec (uint32)")
	assert.Equal(t, 1<<workerBits-1, MaxWorkers)
	assert.Less(t, inactiveShift, jecShift)

	// Fill each field to its maximum and read it back: no field spills
	// into its neighbour.
	var c counters
	for range MaxWorkers {
		c.addInactive()
	}
	for range MaxWorkers {
		old := c.load()
		require.True(t, c.tryAddSleeping(old))
	}
	s := c.load()
	assert.Equal(t, MaxWorkers, s.inactive())
	assert.Equal(t, MaxWorkers, s.sleeping())
	assert.Equal(t, jec(0), s.jec())
	c.subSleeping()
	c.subInactive()
	assert.Equal(t, MaxWorkers-1, c.load().inactive())
	assert.Equal(t, MaxWorkers-1, c.load().sleeping())
}

func TestJECWrapLeavesCountsAlone(t *testing.T) {
	var c counters
	c.addInactive()
	c.word.Add(uint64(^jec(0)) << jecShift) // JEC at its maximum (odd)
	s := c.announceSleepy()                 // wraps to 0
	assert.Equal(t, jec(0), s.jec())
	assert.Equal(t, 1, s.inactive())
	assert.True(t, s.jec().sleepy())
}

// TestJECParity is the even/odd scheme: posting bumps only an even JEC,
// getting sleepy bumps only an odd one.
func TestJECParity(t *testing.T) {
	var c counters
	start := c.load().jec()
	require.True(t, start.sleepy())
	assert.Equal(t, start+1, c.postJobs().jec(), "post after sleepy bumps")
	assert.Equal(t, start+1, c.postJobs().jec(), "second post is a load only")
	assert.Equal(t, start+2, c.announceSleepy().jec())
	assert.Equal(t, start+2, c.announceSleepy().jec(), "already sleepy")
}

// TestDocBitMap keeps the bit map on the counters type in step with the
// constants it describes.
func TestDocBitMap(t *testing.T) {
	src, err := os.ReadFile("counters.go")
	require.NoError(t, err)
	for _, line := range strings.Split(strings.TrimSpace(Layout()), "\n") {
		assert.Contains(t, string(src), "//\t"+line+"\n")
	}
}

// TestSpecBitMap keeps the bit map in the protocol's specification
// (docs/sleep.md) in step with the constants too.
func TestSpecBitMap(t *testing.T) {
	spec, err := os.ReadFile("../docs/sleep.md")
	require.NoError(t, err)
	assert.Contains(t, string(spec), "```\n"+Layout()+"```\n")
}
