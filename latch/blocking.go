package latch

import "sync"

// Blocking is a latch for goroutines outside the pool: Wait parks the
// calling goroutine on a condition variable and never spins. Any number of
// goroutines may wait; Set wakes them all. The zero value is an unset latch.
type Blocking struct {
	mu   sync.Mutex
	cond sync.Cond // cond.L is &mu, set lazily under mu
	set  bool      // guarded by mu
}

// Set sets the latch and wakes every waiter. Everything the caller did
// before Set happens before any Wait returns.
func (b *Blocking) Set() {
	b.mu.Lock()
	b.set = true
	b.cond.Broadcast()
	b.mu.Unlock()
}

// Wait blocks until the latch is set.
func (b *Blocking) Wait() {
	b.mu.Lock()
	b.cond.L = &b.mu
	for !b.set {
		b.cond.Wait()
	}
	b.mu.Unlock()
}

// Probe reports whether the latch is set, without blocking.
func (b *Blocking) Probe() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.set
}

// Reset makes the latch unset again. No goroutine may be waiting on it or
// about to set it.
func (b *Blocking) Reset() {
	b.mu.Lock()
	b.set = false
	b.mu.Unlock()
}
