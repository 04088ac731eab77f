package latch

import "sync/atomic"

// State is the value of a Core latch's state word.
type State uint32

const (
	// Unset is the initial state: nobody has set the latch and its owner
	// is awake (probing, searching for work, or running a job).
	Unset State = iota
	// Sleepy means the owner has decided to sleep but does not yet hold its
	// sleep mutex. A Set that sees Sleepy need not wake anyone: the owner's
	// next CAS (Sleepy to Sleeping) fails and it stays awake.
	Sleepy
	// Sleeping means the owner holds, or has held, its sleep mutex on the
	// way into its condition variable. A Set that sees Sleeping must wake
	// the owner, and must take the owner's sleep mutex to do so.
	Sleeping
	// Set is final: no transition leaves it until the owner calls Reset.
	Set
)

var stateNames = [...]string{"Unset", "Sleepy", "Sleeping", "Set"}

// String returns the state's name.
func (s State) String() string {
	if int(s) < len(stateNames) {
		return stateNames[s]
	}
	return "State(invalid)"
}

// Core is the four-state latch every waiting latch is built on. One
// goroutine, the owner, waits on it (Probe, GetSleepy, FallAsleep, WakeUp);
// any goroutine may call Set. The zero value is an unset latch.
//
// Core does not know how to wake its owner: Set reports whether the owner
// was asleep, and the caller wakes it. See the package documentation for
// the protocol and docs/latch.md for its specification.
type Core struct {
	// state holds a State. Transitions:
	//   owner:  Unset->Sleepy (CAS), Sleepy->Sleeping (CAS, under the
	//           owner's sleep mutex), Sleeping->Unset (CAS, on waking),
	//           Set->Unset (Reset, only when no setter can be running).
	//   setter: any->Set (Swap).
	// Every owner transition is a CAS whose expected value is not Set, so
	// once a Swap has stored Set no owner transition can overwrite it; this
	// is what makes the latch's "set" one-way. All operations are
	// sequentially consistent (sync/atomic), so a setter's writes before
	// its Swap happen before an owner's Probe that reads Set.
	state atomic.Uint32
}

// Probe reports whether the latch is set. If it returns true, everything
// the setter did before Set happens before Probe returns.
func (c *Core) Probe() bool { return State(c.state.Load()) == Set }

// State returns the current state, for tests and debugging.
func (c *Core) State() State { return State(c.state.Load()) }

// GetSleepy moves the latch from Unset to Sleepy. It reports false when the
// latch is not Unset, which for a well-behaved owner means it is Set.
func (c *Core) GetSleepy() bool {
	return c.state.CompareAndSwap(uint32(Unset), uint32(Sleepy))
}

// FallAsleep moves the latch from Sleepy to Sleeping. The owner must hold
// its sleep mutex: a setter that then sees Sleeping takes the same mutex
// before signalling, so it cannot signal before the owner waits. It reports
// false when the latch was set in between.
func (c *Core) FallAsleep() bool {
	return c.state.CompareAndSwap(uint32(Sleepy), uint32(Sleeping))
}

// WakeUp moves the latch from Sleeping back to Unset after the owner wakes.
// If the latch was set meanwhile the CAS fails and the latch stays Set.
func (c *Core) WakeUp() {
	c.state.CompareAndSwap(uint32(Sleeping), uint32(Unset))
}

// Set sets the latch and reports whether the owner was Sleeping, in which
// case the caller must wake the owner (under the owner's sleep mutex).
//
// The owner may reuse or abandon the latch the instant Set's swap is done:
// a caller must read everything it needs from the latch's container before
// calling Set.
func (c *Core) Set() (ownerSleeping bool) {
	return State(c.state.Swap(uint32(Set))) == Sleeping
}

// Reset returns a set latch to Unset so its owner can reuse it. Only the
// owner may call it, after Probe returned true: by then the one setter has
// finished its swap and no other goroutine may touch the latch.
func (c *Core) Reset() { c.state.Store(uint32(Unset)) }
