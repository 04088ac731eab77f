package slots

// Stats is a snapshot of a Tracker's figures. InUse and Reserved are read
// together; the other figures are read one by one, so a snapshot taken
// while slots move is not atomic across all fields.
type Stats struct {
	InUse    int    // slots marked used and not yet released
	Reserved int    // slots reserved and not yet marked used
	Issued   uint64 // permits handed out since the Tracker was made
	Refusals uint64 // TryReserve calls that got no slot
	Failures uint64 // Reserve calls that returned an error (ctx ended, ErrPaused, ...)
	Leaked   uint64 // permits dropped unreleased and reclaimed (WithLeakHook)
	// Max is the supplier's MaxSlots (0: unbounded). Available is Max
	// less this Tracker's InUse and Reserved, or -1 when unbounded; for a
	// supplier shared with other Trackers it overstates what is free.
	Max       int
	Available int
}

// Stats returns t's figures now.
func (t *Tracker) Stats() Stats {
	t.mustBeMade()
	h := t.held.Load()
	s := Stats{
		InUse:     heldUsed(h),
		Reserved:  heldReserved(h),
		Issued:    t.issued.Load(),
		Refusals:  t.refusals.Load(),
		Failures:  t.failures.Load(),
		Leaked:    t.leaked.Load(),
		Max:       t.supplier.MaxSlots(),
		Available: -1,
	}
	if s.Max > 0 {
		s.Available = max(s.Max-s.InUse-s.Reserved, 0)
	}
	return s
}

// UsedSlots returns the slots in use now with their tasks, as
// ReserveContext.UsedSlots does for suppliers.
func (t *Tracker) UsedSlots() []UsedInfo {
	t.mustBeMade()
	return t.used.list(nil)
}
