package slots

import "context"

// Supplier decides how many tasks may run at once: it hands out permits,
// one per slot, and takes them back. Implement it to admit work by a rule
// of your own; Fixed, ResourceBased and Pauseable are the ones that ship.
//
// A Supplier is called through a Tracker, which guarantees the protocol:
// every permit the supplier grants to a Tracker is released to it exactly
// once (one never marked used comes back with NeverUsed), MarkSlotUsed is
// called at most once per permit and before its release, and permits come
// back to the supplier that granted them. A supplier called directly, as
// one supplier wrapping another does, gets none of these checks, and must
// itself release what it was granted and will not pass on.
//
// All methods may be called from many goroutines at once, and by several
// Trackers: a supplier shared by two pools bounds their sum.
type Supplier interface {
	// ReserveSlot blocks until a slot is free or ctx is done. It returns
	// a permit and a nil error, or the zero Permit and an error:
	// ctx.Err() (possibly wrapped) when ctx ended the wait. A reservation
	// that returns an error must leave nothing reserved, including when
	// a slot is granted at the same moment ctx ends: the supplier either
	// returns that slot's permit or takes the slot back itself.
	ReserveSlot(ctx context.Context, rc ReserveContext) (Permit, error)

	// TryReserveSlot returns a permit and true if a slot is free now, and
	// the zero Permit and false otherwise. It never blocks; a supplier
	// that cannot decide without blocking may always refuse.
	TryReserveSlot(rc ReserveContext) (Permit, bool)

	// MarkSlotUsed is called when a task starts on the slot of u.Permit.
	// It must not block; a supplier may use u.Task to decide later
	// reservations.
	MarkSlotUsed(u UsedInfo)

	// ReleaseSlot takes the slot of r.Permit back. It must not block.
	ReleaseSlot(r ReleaseInfo)

	// MaxSlots returns the most slots the supplier will ever have out at
	// once, or 0 if it has no fixed bound.
	MaxSlots() int
}

// TaskInfo describes the task that uses a slot. The zero TaskInfo
// describes a task of no particular kind.
type TaskInfo struct {
	// Kind names the task's kind or the queue it came from; suppliers
	// may treat kinds differently.
	Kind string
	// Data is anything else the caller wants suppliers to see.
	Data any
}

// UsedInfo is what MarkSlotUsed receives, and what ReserveContext.UsedSlots
// lists: a permit and the task using its slot. Suppliers see permits
// without their Tracker's stamp, so keeping one does not defeat leak
// detection.
type UsedInfo struct {
	Permit Permit
	Task   TaskInfo
}

// ReleaseInfo is what ReleaseSlot receives; its zero value releases
// nothing (the zero Permit) and no supplier should be given it. It does
// not repeat the task
// that used the slot: a supplier that needs it at release keeps it from
// MarkSlotUsed, by permit ID. (Leaving it out keeps ReleaseInfo small
// enough to travel in registers, which halves the cost of a wrapper's
// pass-through ReleaseSlot.)
type ReleaseInfo struct {
	Permit Permit
	Reason ReleaseReason
	// Used reports whether the slot was marked used.
	Used bool
}
