package slots

import "errors"

// ErrReleasedTwice is returned by Tracker.Release for a permit that was
// already released (through any copy of it). The supplier never sees the
// second release.
var ErrReleasedTwice = errors.New("weft/slots: permit released twice")

// ErrForeignPermit is returned by Tracker.Release and Tracker.MarkUsed for
// a permit obtained through another Tracker.
var ErrForeignPermit = errors.New("weft/slots: permit belongs to another tracker")

// ErrUnknownPermit is returned by Tracker.Release and Tracker.MarkUsed for
// the zero Permit, for a permit no Tracker reserved (one a supplier created
// but never returned through a Tracker), and by MarkUsed for a permit
// that was already released.
var ErrUnknownPermit = errors.New("weft/slots: unknown permit")

// ErrMarkedTwice is returned by Tracker.MarkUsed for a permit already
// marked used.
var ErrMarkedTwice = errors.New("weft/slots: permit marked used twice")

// ErrPaused is returned by a Pauseable's ReserveSlot for a reservation that
// a Pause with CancelOutstanding ended.
var ErrPaused = errors.New("weft/slots: supplier paused")

// ErrPermitLeaked is the error in the TaskFailed reason with which leak
// detection releases a permit that was dropped without being released.
var ErrPermitLeaked = errors.New("weft/slots: permit dropped without release")

// ErrBadSample is wrapped by ResourceState.Err when a ResourceBased
// supplier skipped its last reading because the Sampler panicked or
// returned figures that are not usage, and by the error of a
// ResourceBased reservation that failed because no slot can be granted
// until a reading succeeds and the readings keep failing.
var ErrBadSample = errors.New("weft/slots: bad usage sample")
