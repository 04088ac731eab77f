package slots

import (
	"io/fs"
	"time"
)

// Exported for tests only.

// SetTraceDecision makes f see every ResourceBased decision (nil: none).
func SetTraceDecision(f func(n float64, u [2]float64, k float64, budget int)) {
	traceDecision = f
}

// Waiting returns how many reservers are queued in f.
func (f *Fixed) Waiting() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for w := f.head; w != nil; w = w.next {
		n++
	}
	return n
}

// FreeSlots counts the records on f's free stack; f must be quiet.
func (f *Fixed) FreeSlots() int {
	n := 0
	for top := f.state.Load() & fixedTopMask; top != 0; top = f.recs[top-1].state.Load() >> phaseBits {
		n++
	}
	return n
}

// WaitersFlag reports whether f's waiters flag is set.
func (f *Fixed) WaitersFlag() bool { return f.state.Load()&fixedWaitBit != 0 }

// Layout of Fixed.state and Tracker.held, for the layout test.
const (
	FixedTopMask  = fixedTopMask
	FixedWaitBit  = fixedWaitBit
	FixedTagOne   = fixedTagOne
	HeldUsedOne   = heldUsedOne
	HeldReserved  = heldReservedOne
	HeldFieldMask = heldFieldMask
	PhaseBits     = phaseBits
)

// NewFSSampler is newFSSampler.
func NewFSSampler(fsys fs.FS, now func() time.Time, cpus int) (Sampler, error) {
	return newFSSampler(fsys, now, cpus)
}
