package scheduler

import (
	"context"
	"errors"
	"fmt"

	"github.com/weftrt/weft/slots"
)

// ErrNoSlot is returned by TrySpawn when the pool's supplier has no free
// slot.
var ErrNoSlot = errors.New("weft/scheduler: no free slot")

// door admits tasks that enter the pool from outside: each needs a permit
// from the pool's slot supplier, marked used when a worker starts the task
// and released when it ends. Forks inside the pool (joins, scope spawns)
// do not pass the door: a fork is part of a task that already holds a
// slot, and a permit per fork would cost more than the fork.
type door struct {
	tracker *slots.Tracker
	kind    string // the reservation's kind: the pool's name
}

func (d *door) reserve(ctx context.Context) (slots.Permit, error) {
	return d.tracker.Reserve(ctx, d.kind)
}

func (d *door) tryReserve() (slots.Permit, error) {
	p, ok := d.tracker.TryReserve(d.kind)
	if !ok {
		return slots.Permit{}, ErrNoSlot
	}
	return p, nil
}

// start marks the slot used as a worker starts the task.
func (d *door) start(p slots.Permit) {
	must(d.tracker.MarkUsed(p, slots.TaskInfo{Kind: d.kind}))
}

// finish releases the slot of a task that ran: complete, or failed with
// its panic.
func (d *door) finish(p slots.Permit, pan *Panic) {
	reason := slots.TaskComplete()
	if pan != nil {
		reason = slots.TaskFailed(pan)
	}
	must(d.tracker.Release(p, reason))
}

// neverUsed releases the slot of a task that never started.
func (d *door) neverUsed(p slots.Permit) {
	must(d.tracker.Release(p, slots.NeverUsed()))
}

// must panics on a Tracker error: the pool uses each permit exactly as
// the protocol says, so an error here is a bug in the pool, not in a
// supplier (the Tracker shields suppliers from misuse).
func must(err error) {
	if err != nil {
		panic(fmt.Sprintf("weft/scheduler: slot protocol broken: %v", err))
	}
}
