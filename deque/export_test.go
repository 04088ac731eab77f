package deque

// This file exposes internals to the package's tests only.

// NewAt returns an empty deque whose first buffer has capacity slots (a power
// of two) and whose top and bottom both start at index start, so tests can run
// the ring with large logical indices, starting at any ring offset.
func NewAt[E any](capacity int, start int64) *Deque[E] {
	d := New[E](capacity)
	d.l.top.Store(start)
	d.l.bottom.Store(start)
	d.l.topCache = start
	return d
}

// SetShrinkFloor makes buffers larger than floor slots eligible for shrinking
// (the default is 1024), so tests can exercise shrinking on small deques.
// Call it before the first Push.
func (d *Deque[E]) SetShrinkFloor(floor int) {
	d.l.floor = int64(floor)
	if a := d.l.buf.Load(); a != nil {
		d.l.buf.Store(newBuffer(a.size(), d.l.floor))
	}
}

// Cap returns the number of slots in the current buffer (0 before the first
// buffer exists).
func (d *Deque[E]) Cap() int {
	if a := d.l.buf.Load(); a != nil {
		return int(a.size())
	}
	return 0
}
