package slots

import "context"

// Unlimited is a Supplier that always has a slot: admission that admits
// everything, but still counts (through a Tracker) what is reserved and in
// use. It is the pool's default. The zero Unlimited is ready to use and
// shareable; it is the only Unlimited there is, so use the value, not a
// pointer (a nil *Unlimited panics, as any value method called through a
// nil pointer does).
type Unlimited struct{}

// ReserveSlot hands out a new permit at once, unless ctx is already done.
func (Unlimited) ReserveSlot(ctx context.Context, _ ReserveContext) (Permit, error) {
	if err := ctx.Err(); err != nil {
		return Permit{}, err
	}
	return NewPermit(nil), nil
}

// TryReserveSlot hands out a new permit.
func (Unlimited) TryReserveSlot(ReserveContext) (Permit, bool) { return NewPermit(nil), true }

// MarkSlotUsed does nothing: Unlimited keeps no state.
func (Unlimited) MarkSlotUsed(UsedInfo) {}

// ReleaseSlot does nothing: Unlimited keeps no state.
func (Unlimited) ReleaseSlot(ReleaseInfo) {}

// MaxSlots returns 0: there is no bound.
func (Unlimited) MaxSlots() int { return 0 }
