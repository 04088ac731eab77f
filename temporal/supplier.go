package wefttemporal

import (
	"context"
	"errors"
	"fmt"

	"github.com/weftrt/weft/slots"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/worker"
)

// Supplier is a Temporal worker.SlotSupplier that hands out the slots of a
// weft slots.Supplier: Fixed, ResourceBased, Pauseable or one of your own.
// Give it to a worker through a tuner (NewTuner, or Temporal's
// worker.NewCompositeTuner) in worker.Options.Tuner.
//
// It reaches the weft supplier through a slots.Tracker of its own, so the
// weft supplier gets the protocol the Tracker guarantees, whatever
// Temporal does: every permit released exactly once, MarkSlotUsed at most
// once and before the release. A second release of a permit, or a permit
// of another supplier, goes to the error hook (WithErrorHook) or
// Temporal's logger, never to the weft supplier; WithLeakHook finds
// permits Temporal drops. Stats shows the slots out.
//
// What maps to what:
//
//   - ReserveSlot(ctx, info) is Tracker.Reserve with the slot type as the
//     kind, under a ctx that carries Temporal's info (ReservationOf). It
//     returns ctx's error when the poller stops waiting, which Temporal
//     takes quietly. A reservation that a Pause with CancelOutstanding
//     ends (slots.ErrPaused) is asked again, so it waits for Resume:
//     Temporal, given any other error, logs it and retries a second later.
//     (A supplier of your own that returns ErrPaused must therefore wait
//     in the next ReserveSlot, as Pauseable does, not fail again at once.)
//   - TryReserveSlot(info) is Tracker.TryReserve; it returns nil when the
//     weft supplier refuses.
//   - MarkSlotUsed is Tracker.MarkUsed with a TaskInfo whose Kind is the
//     slot type and whose Data is the *Reservation (TaskReservation reads
//     it).
//   - ReleaseSlot is Tracker.Release with slots.TaskComplete when Temporal
//     says the task was processed, and slots.NeverUsed when it says the
//     slot went unused (a poll that returned nothing, a worker stopping).
//     Temporal does not say whether a task failed, so a weft supplier
//     never sees slots.TaskFailed from Temporal; only leak detection
//     releases with it.
//   - MaxSlots is the weft supplier's MaxSlots (0: no fixed bound, which
//     Temporal reads the same way).
//
// Each reservation costs one allocation beyond the weft supplier's own
// (docs/figures.md compares it with Temporal's fixed-size supplier).
//
// A Supplier serves one slot type of one worker; a weft supplier may sit
// behind several Suppliers (one Fixed for activities and local
// activities, say), and then bounds their sum. Its methods are safe for
// concurrent use. The zero Supplier is unusable: make one with
// NewSupplier.
type Supplier struct {
	typ     SlotType
	tracker *slots.Tracker
	onError func(error) // nil: log through Temporal's logger
}

var _ worker.SlotSupplier = (*Supplier)(nil)

// NewSupplier returns a Supplier of slots of type t from s. It panics if s
// is nil or t is not one of the SlotType constants.
func NewSupplier(t SlotType, s slots.Supplier, opts ...Option) *Supplier {
	if s == nil {
		panic("weft/temporal: NewSupplier with a nil slots.Supplier")
	}
	if !t.valid() {
		panic(fmt.Sprintf("weft/temporal: NewSupplier with %v: want Workflow, Activity, LocalActivity, Nexus or SessionActivity", t))
	}
	var c config
	for _, o := range opts {
		if o == nil {
			panic("weft/temporal: NewSupplier with a nil Option")
		}
		o(&c)
	}
	return &Supplier{typ: t, tracker: slots.NewTracker(s, c.tracker...), onError: c.onError}
}

// Type returns the slot type s supplies.
func (s *Supplier) Type() SlotType {
	s.mustBeMade()
	return s.typ
}

// Weft returns the weft supplier s hands out slots of.
func (s *Supplier) Weft() slots.Supplier {
	s.mustBeMade()
	return s.tracker.Supplier()
}

// Stats returns the figures of s's Tracker: slots reserved and in use
// now, permits issued, refusals, failures and leaks since s was made.
// InUse + Reserved is 0 once the worker has stopped and every permit has
// come back.
func (s *Supplier) Stats() slots.Stats {
	s.mustBeMade()
	return s.tracker.Stats()
}

// UsedSlots returns the slots in use now; each Task's Data is the
// slot's *Reservation (see TaskReservation).
func (s *Supplier) UsedSlots() []slots.UsedInfo {
	s.mustBeMade()
	return s.tracker.UsedSlots()
}

// ReserveSlot implements worker.SlotSupplier: it blocks until the weft
// supplier grants a slot or ctx ends.
func (s *Supplier) ReserveSlot(ctx context.Context, info worker.SlotReservationInfo) (*worker.SlotPermit, error) {
	s.mustBeMade()
	if ctx == nil {
		panic("weft/temporal: ReserveSlot with a nil context")
	}
	g := &grant{Context: ctx, owner: s, res: Reservation{Type: s.typ, Info: info}}
	for {
		p, err := s.tracker.Reserve(g, s.typ.String())
		if err == nil {
			return g.issue(p), nil
		}
		if errors.Is(err, slots.ErrPaused) && ctx.Err() == nil {
			// A Pause with CancelOutstanding. Temporal's poller would
			// log the error and ask again after a second; asking now
			// waits for Resume instead, which is what pausing means.
			continue
		}
		return nil, err
	}
}

// TryReserveSlot implements worker.SlotSupplier: a permit if the weft
// supplier grants one at once, else nil.
func (s *Supplier) TryReserveSlot(info worker.SlotReservationInfo) *worker.SlotPermit {
	s.mustBeMade()
	p, ok := s.tracker.TryReserve(s.typ.String())
	if !ok {
		return nil
	}
	g := &grant{owner: s, res: Reservation{Type: s.typ, Info: info}}
	return g.issue(p)
}

// issue makes g's SlotPermit carry p, and returns it for Temporal.
func (g *grant) issue(p slots.Permit) *worker.SlotPermit {
	g.permit = p
	g.slot.UserData = g
	return &g.slot
}

// MarkSlotUsed implements worker.SlotSupplier.
func (s *Supplier) MarkSlotUsed(info worker.SlotMarkUsedInfo) {
	s.mustBeMade()
	g, err := s.grantOf(info.Permit())
	if err == nil {
		err = s.tracker.MarkUsed(g.permit, slots.TaskInfo{Kind: s.typ.String(), Data: &g.res})
	}
	if err != nil {
		s.report(info.Logger(), "MarkSlotUsed", err)
	}
}

// ReleaseSlot implements worker.SlotSupplier.
func (s *Supplier) ReleaseSlot(info worker.SlotReleaseInfo) {
	s.mustBeMade()
	g, err := s.grantOf(info.Permit())
	if err == nil {
		err = s.tracker.Release(g.permit, releaseReason(int(info.Reason())))
	}
	if err != nil {
		s.report(info.Logger(), "ReleaseSlot", err)
	}
}

// MaxSlots implements worker.SlotSupplier: the weft supplier's MaxSlots.
func (s *Supplier) MaxSlots() int {
	s.mustBeMade()
	return s.tracker.Supplier().MaxSlots()
}

// grantOf finds the grant behind a permit Temporal hands back.
func (s *Supplier) grantOf(p *worker.SlotPermit) (*grant, error) {
	if p == nil {
		return nil, fmt.Errorf("%w: a nil *SlotPermit", ErrUnknownPermit)
	}
	g, ok := p.UserData.(*grant)
	if !ok || &g.slot != p {
		return nil, fmt.Errorf("%w: UserData %T", ErrUnknownPermit, p.UserData)
	}
	if g.owner != s {
		return nil, fmt.Errorf("%w: %v of a %v Supplier given to a %v Supplier", slots.ErrForeignPermit, g.permit, g.owner.typ, s.typ)
	}
	return g, nil
}

// report hands a protocol error to the hook, or logs it.
func (s *Supplier) report(l log.Logger, call string, err error) {
	err = fmt.Errorf("weft/temporal: %v supplier's %s: %w", s.typ, call, err)
	switch {
	case s.onError != nil:
		s.onError(err)
	case l != nil:
		l.Error("weft slot supplier refused a call", "error", err)
	}
}

func (s *Supplier) mustBeMade() {
	if s == nil || s.tracker == nil {
		panic("weft/temporal: Supplier not made by NewSupplier")
	}
}
