package slots

// ReserveContext is what a supplier learns about a reservation: what it is
// for, and the state of the Tracker asking, read live. A blocking
// ReserveSlot may wait a long time; every method reports the Tracker as it
// is when called, not as it was when the reservation began, so a supplier
// can re-read it each time it reconsiders.
//
// Figures are the asking Tracker's own: a supplier shared by several
// Trackers sees each one's share through that Tracker's contexts.
//
// The zero ReserveContext, which suppliers may pass when they call one
// another directly, has no kind, nothing issued and nothing in use.
type ReserveContext struct {
	t    *Tracker
	kind string
}

// Kind returns what the slot is reserved for: the kind or queue name given
// to Tracker.Reserve or TryReserve.
func (rc ReserveContext) Kind() string { return rc.kind }

// Issued returns how many permits the Tracker has handed out so far.
func (rc ReserveContext) Issued() uint64 {
	if rc.t == nil {
		return 0
	}
	return rc.t.issued.Load()
}

// InUse returns how many of the Tracker's slots are marked used now.
func (rc ReserveContext) InUse() int {
	if rc.t == nil {
		return 0
	}
	return heldUsed(rc.t.held.Load())
}

// Reserved returns how many of the Tracker's slots are reserved and not
// yet marked used now.
func (rc ReserveContext) Reserved() int {
	if rc.t == nil {
		return 0
	}
	return heldReserved(rc.t.held.Load())
}

// UsedSlots returns the Tracker's slots in use now, with the task on each,
// in no particular order. The slice is new and the caller's to keep. It is
// gathered one shard of the Tracker at a time, so a slot marked used or
// released while it is being read may or may not appear.
func (rc ReserveContext) UsedSlots() []UsedInfo {
	if rc.t == nil {
		return nil
	}
	return rc.t.used.list(nil)
}
