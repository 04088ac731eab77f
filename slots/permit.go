package slots

import (
	"strconv"
	"sync/atomic"
)

// A record's phase, kept in the low phaseBits bits of its state word. A
// record moves Free -> Issued (a supplier hands out a permit) -> Reserved
// (a Tracker adopts it) -> Marking (MarkUsed is telling the supplier)
// -> Used -> Released (Tracker.Release),
// skipping Used when the slot is released unused. A supplier that reuses
// records (Fixed) moves Released or Issued back to Free when the slot comes
// home; a record made by NewPermit stops at Released.
const (
	phaseFree     = iota // no permit out: the record rests in its supplier
	phaseIssued          // a supplier issued a permit that no Tracker holds
	phaseReserved        // a Tracker holds the permit; not yet marked used
	phaseUsed            // marked used: a task runs on the slot
	phaseReleased        // released through a Tracker, not yet back home
	// phaseMarking: MarkUsed has taken the permit and is telling the
	// supplier; it becomes Used once MarkSlotUsed has returned. A Release
	// that finds it waits, so that the supplier never sees ReleaseSlot
	// before the MarkSlotUsed of the same permit.
	phaseMarking

	phaseBits = 3
	phaseMask = 1<<phaseBits - 1
)

// word is the state word of permit id (or, for a Free record of a Fixed,
// the free-stack link) in phase.
func word(id, phase uint64) uint64 { return id<<phaseBits | phase }

// idBlock is how many ids a reusable record takes from lastID at a time, so
// that a supplier issuing from its own records touches the process-wide
// counter once per idBlock permits instead of once per permit.
const idBlock = 1024

// lastID is the last permit id handed out (to a NewPermit or as the end of
// a reusable record's block). It only grows, so ids are unique in the
// process; ids start at 1, leaving 0 to the zero Permit. At a billion
// permits a second the 61 bits left beside the phase last 73 years.
var lastID atomic.Uint64

// record is the shared state behind a permit. Permits are small values that
// point at a record; the record says whether the permit a value names is
// still the live one (its id matches) and what has happened to it (the
// phase), so a stale or copied Permit is detected without allocating a
// record per permit.
type record struct {
	// state is word(id, phase), where id is the permit currently or last
	// issued from this record (a Free record of a Fixed holds its
	// free-stack link there instead; see Fixed.pop). Every change is a
	// single Store or CAS of the whole word, so a check of "this id, this
	// phase" and the move to the next phase are one step: two Releases of
	// one permit cannot both succeed, and a Release of a stale permit
	// (its id no longer in the word) fails even if the record has been
	// issued again. A link that happens to equal a stale id is told apart
	// by the phase: no check accepts Free.
	state atomic.Uint64

	// data is the supplier's user data. It is written before the permit
	// is first published and never again (NewPermit records are used
	// once; Fixed never sets data), so reading it needs no lock.
	data any

	// Fields of records owned by a Fixed, written before it is shared.
	fixed *Fixed
	index uint32

	// resource is the ResourceBased that issued the permit, written
	// before the permit is published, so that its ReleaseSlot can refuse
	// a permit it did not issue instead of freeing a slot still in use.
	resource *ResourceBased

	// nextID and endID are the unused part of this record's id block.
	// Only the goroutine that is issuing from the record touches them:
	// a record is issued by whoever took it off the free stack or out of
	// a hand-off, and both of those synchronize after the record's last
	// release.
	nextID, endID uint64

	// The in-use list of the Tracker that holds the permit, guarded by
	// that Tracker's shard lock while the phase is Used.
	task               TaskInfo
	prevUsed, nextUsed *record
}

// issue starts a new permit on a reusable record, which its caller owns.
func (r *record) issue() Permit {
	if r.nextID == r.endID {
		end := lastID.Add(idBlock)
		r.nextID, r.endID = end-idBlock+1, end+1
	}
	id := r.nextID
	r.nextID++
	r.state.Store(word(id, phaseIssued))
	return Permit{rec: r, id: id}
}

// retire ends permit id on a reusable record, moving it back to Free with
// below, the free-stack link, in place of the id. It reports false,
// changing nothing, if id is not the record's live permit or a Tracker
// still holds it.
func (r *record) retire(id, below uint64) bool {
	for {
		w := r.state.Load()
		if w>>phaseBits != id {
			return false
		}
		switch w & phaseMask {
		case phaseIssued, phaseReleased:
		default:
			return false
		}
		// The CAS against the word just checked makes a racing second
		// release of the same permit fail instead of freeing it twice.
		if r.state.CompareAndSwap(w, word(below, phaseFree)) {
			return true
		}
	}
}

// Permit is the right to run one task on one slot. A supplier creates it
// (NewPermit, or Fixed from its own records); the Tracker that obtained it
// marks it used and releases it. The package assigns ids: a supplier never
// chooses one.
//
// A Permit is a small value and may be copied; every copy names the same
// permit, and releasing it through any copy releases it. The zero Permit
// holds no slot: its ID is 0 and its Data nil, a Tracker refuses to mark
// or release it (ErrUnknownPermit), and the built-in suppliers panic if
// asked to release it.
type Permit struct {
	rec *record
	id  uint64
	// own is the Tracker's stamp, set when a Tracker adopts the permit:
	// Release checks it to refuse permits of another Tracker. With leak
	// detection it is a fresh object per permit, so it becomes garbage
	// exactly when the last copy of the permit does.
	own *owner
}

// owner identifies the Tracker a permit belongs to.
type owner struct{ t *Tracker }

// NewPermit returns a new permit carrying data, for a supplier's
// ReserveSlot or TryReserveSlot to return. Its id is new and unique in the
// process. NewPermit allocates; a supplier that must not allocate per slot
// can wrap a Fixed and return its permits.
func NewPermit(data any) Permit {
	r := &record{data: data}
	id := lastID.Add(1)
	r.state.Store(word(id, phaseIssued))
	return Permit{rec: r, id: id}
}

// ID returns the permit's id, unique among the permits of the process; 0
// for the zero Permit.
func (p Permit) ID() uint64 { return p.id }

// Data returns the data the supplier attached with NewPermit; nil for the
// zero Permit and for permits of the built-in suppliers.
func (p Permit) Data() any {
	if p.rec == nil {
		return nil
	}
	return p.rec.data
}

// IsZero reports whether p is the zero Permit, which holds no slot.
func (p Permit) IsZero() bool { return p.rec == nil }

// String returns "permit <id>".
func (p Permit) String() string { return "permit " + strconv.FormatUint(p.id, 10) }

// bare is p without its Tracker stamp: what suppliers see, so that a
// supplier keeping a permit does not keep its leak detector alive.
func (p Permit) bare() Permit { return Permit{rec: p.rec, id: p.id} }
