package intake

import (
	"slices"
	"sync"
)

// pollClock numbers the worker's polls in the order they begin, and knows
// which are still open (asking the source, or taking in what it gave).
// A key's fence (see keyLines) is a reading of the clock: a task of that
// key whose poll's number is not above it came from a poll that began
// before the key's task went back, so the source may have handed it out
// ahead of the one it is yet to deliver again.
//
// A mutex, not an atomic counter: the open polls must be known to prune
// the fences, and a poll takes one lock as it opens and one as it closes,
// next to a round trip to the source.
type pollClock struct {
	mu   sync.Mutex
	last uint64   // the number of the latest poll to begin; 0 before the first
	open []uint64 // the numbers of the polls not yet closed, ascending
}

// begin numbers a poll about to ask the source, and records it open. The
// number is taken before the poll asks, so that a fence read after a
// task went back is at least the number of every poll that may have been
// answered before that.
func (c *pollClock) begin() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.last++
	c.open = append(c.open, c.last)
	return c.last
}

// end records that poll n has dispatched or handed back all its tasks.
func (c *pollClock) end(n uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if i, ok := slices.BinarySearch(c.open, n); ok {
		c.open = slices.Delete(c.open, i, i+1)
	}
}

// now returns the number of the latest poll to begin.
func (c *pollClock) now() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.last
}

// oldestOpen returns the number of the oldest poll still open, or one
// more than the latest if none is: a fence below it can stop no task.
func (c *pollClock) oldestOpen() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.open) == 0 {
		return c.last + 1
	}
	return c.open[0]
}
