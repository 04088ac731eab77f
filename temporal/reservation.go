package wefttemporal

import (
	"context"

	"github.com/weftrt/weft/slots"
	"go.temporal.io/sdk/worker"
)

// Reservation is what Temporal says about a slot it asks a Supplier for.
// A weft supplier finds it with ReservationOf in the ctx of its
// ReserveSlot, and as the Data of the slots.TaskInfo its MarkSlotUsed gets
// (and ReserveContext.UsedSlots lists).
type Reservation struct {
	// Type is the Supplier's slot type, also the Kind the weft supplier
	// sees.
	Type SlotType
	// Info is Temporal's worker.SlotReservationInfo for the reservation:
	// TaskQueue, WorkerIdentity, WorkerBuildId, NumIssuedSlots (read live:
	// it changes while the reservation waits), and a Logger and
	// MetricsHandler tagged for the worker.
	Info worker.SlotReservationInfo
}

// ReservationOf returns the Temporal reservation that ctx belongs to: call
// it in a weft supplier's ReserveSlot with the ctx it was given. It reports
// false for any other ctx, including the reservations of weft pools and of
// code that calls a supplier directly.
//
// TryReserveSlot takes no ctx (Temporal calls it for eager activities and
// eager workflow starts); a weft supplier learns only the slot type there,
// as rc.Kind(). UsedInfo.Task.Data carries the Reservation of every slot
// marked used, whichever way it was reserved.
func ReservationOf(ctx context.Context) (Reservation, bool) {
	if ctx == nil {
		return Reservation{}, false
	}
	r, ok := ctx.Value(reservationKey{}).(*Reservation)
	if !ok {
		return Reservation{}, false
	}
	return *r, true
}

// TaskReservation returns the Reservation in a TaskInfo that a Supplier
// marked used: what MarkSlotUsed receives as u.Task, and what
// ReserveContext.UsedSlots lists. It reports false for tasks of weft pools
// and other Trackers.
func TaskReservation(t slots.TaskInfo) (Reservation, bool) {
	r, ok := t.Data.(*Reservation)
	if !ok {
		return Reservation{}, false
	}
	return *r, true
}

type reservationKey struct{}

// grant is one reservation, in one allocation: the SlotPermit Temporal
// holds (its UserData points back here), the weft permit behind it, and,
// while ReserveSlot waits, the context the weft supplier sees.
type grant struct {
	// Context is the poller's ctx, which grant extends with the
	// Reservation: grant is the ctx the weft supplier's ReserveSlot gets,
	// so the value costs no allocation of its own. Nil for TryReserveSlot.
	context.Context

	owner  *Supplier
	slot   worker.SlotPermit
	permit slots.Permit // written once, before slot is handed to Temporal
	res    Reservation  // written before the grant is shared
}

// Value returns the Reservation for reservationKey and asks the poller's
// ctx for every other key, so that context.WithCancel and friends find
// the poller's cancellation as they would through context.WithValue.
func (g *grant) Value(key any) any {
	if key == (reservationKey{}) {
		return &g.res
	}
	return g.Context.Value(key)
}
