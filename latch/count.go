package latch

import (
	"strconv"
	"sync/atomic"
)

// Setter is a latch that can be set: an *Owned or a *Blocking.
type Setter interface {
	Set()
}

// Count is a counting latch for scopes: it counts outstanding tasks and
// sets its target latch when the count drops to zero. A scope waits on the
// target: an *Owned when it runs on a pool worker, a *Blocking when it runs
// on an outside goroutine.
//
// The zero value is unusable: call Init first.
type Count struct {
	// pending is the number of Done calls still expected. It starts at the
	// value given to Init (a scope counts its own body as one), goes up by
	// Add and down by Done. The Done that takes it from 1 to 0 is the only
	// one that sets target; after that no Add may happen, which a scope
	// guarantees because only running tasks (each holding a count) spawn.
	// Add and Done are sequentially consistent, so every task's writes
	// happen before the final Done and therefore before the target is set.
	pending atomic.Int64
	target  Setter // written by Init before the latch is shared
}

// Init sets the count to n (n > 0) and the latch to set when it reaches 0.
func (c *Count) Init(n int64, target Setter) {
	if n <= 0 || target == nil {
		badInit(n)
	}
	c.target = target
	c.pending.Store(n)
}

// badInit is Init's panic for a count n <= 0 or else a nil target. It is
// out of line so that Init stays inlinable.
//
//go:noinline
func badInit(n int64) {
	if n <= 0 {
		panic("weft/latch: Count.Init(" + strconv.FormatInt(n, 10) + ", ...): want a count >= 1")
	}
	panic("weft/latch: Count.Init with a nil target")
}

// Add adds one outstanding task. The count must be positive.
func (c *Count) Add() {
	if !c.TryAdd() {
		panic("weft/latch: Count.Add after the count reached zero")
	}
}

// TryAdd adds one outstanding task if the count is positive, and reports
// whether it did. Once the count has reached zero the target is set (or
// about to be), and an Add is a caller's mistake that it can name in its
// own words (a scope spawning after it finished): TryAdd then leaves the
// count at zero, so the latch stays set and its waiter unharmed.
func (c *Count) TryAdd() bool {
	// A CAS, not an Add and an undo: two TryAdds on a count at zero (two
	// handles kept past their scope, used at once) would otherwise see
	// each other's increment, and one would count a task for a latch
	// already set. The CAS orders like the Add it replaces.
	for n := c.pending.Load(); n > 0; n = c.pending.Load() {
		if c.pending.CompareAndSwap(n, n+1) {
			return true
		}
	}
	return false
}

// Done marks one task finished and sets the target if it was the last.
func (c *Count) Done() {
	// Read the target first: the waiter may reuse c once the target is set,
	// and it may be set the moment pending reaches zero.
	target := c.target
	switch n := c.pending.Add(-1); {
	case n == 0:
		target.Set()
	case n < 0:
		panic("weft/latch: Count.Done called more times than counted")
	}
}

// Pending returns the number of outstanding tasks.
func (c *Count) Pending() int64 { return c.pending.Load() }
