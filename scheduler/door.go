package scheduler

import (
	"context"
	"errors"
	"fmt"

	"github.com/weftrt/weft/internal/core"
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
	// closed is cancelled when the pool starts shutting down, so that
	// callers waiting for a slot return ErrClosed at once instead of
	// waiting for their own context.
	closed context.Context
	close  context.CancelFunc
	// unlimited: the supplier never makes a reservation wait, so there is
	// no need to watch closed (which costs a context per reservation).
	unlimited bool
}

func newDoor(s slots.Supplier, kind string, opts []slots.TrackerOption) door {
	closed, cancel := context.WithCancel(context.Background())
	_, unlimited := s.(slots.Unlimited)
	return door{tracker: slots.NewTracker(s, opts...), kind: kind,
		closed: closed, close: cancel, unlimited: unlimited}
}

func (d *door) reserve(ctx context.Context) (slots.Permit, error) {
	if d.unlimited {
		return d.tracker.Reserve(ctx, d.kind)
	}
	if ctx.Done() == nil {
		// The caller's context can never end (Background, TODO): the
		// pool's closing is the only way out, and closingContext gives it
		// without the allocation and shared registration of a merge.
		ctx = closingContext{ctx, d.closed}
	} else {
		var cancel context.CancelFunc
		ctx, cancel = context.WithCancel(ctx)
		defer cancel()
		defer context.AfterFunc(d.closed, cancel)()
	}
	p, err := d.tracker.Reserve(ctx, d.kind)
	if err != nil && d.closed.Err() != nil {
		return p, ErrClosed
	}
	return p, err
}

// closingContext is a context that never ends by itself (its parent's Done
// is nil) made to end when the pool starts closing.
type closingContext struct {
	context.Context                 // the caller's: values (and no deadline)
	closed          context.Context // the door's
}

func (c closingContext) Done() <-chan struct{} { return c.closed.Done() }
func (c closingContext) Err() error            { return c.closed.Err() }

func (d *door) tryReserve() (slots.Permit, error) {
	p, ok := d.tracker.TryReserve(d.kind)
	if !ok {
		return slots.Permit{}, ErrNoSlot
	}
	return p, nil
}

// A supplier is user code, and its MarkSlotUsed or ReleaseSlot may panic.
// The Tracker records each move before it calls the supplier, so the
// permit accounting stays exact whatever the supplier does; the door
// catches the panic and returns it, for whoever waits for the task (or the
// panic handler) to get, instead of letting it crash a worker.

// start marks the slot used as a worker starts the task. A non-nil result
// is the supplier's panic: the task must not run; end it with finish.
func (d *door) start(p slots.Permit) *Panic {
	return core.Catch[Panic](func() { must(d.tracker.MarkUsed(p, slots.TaskInfo{Kind: d.kind})) })
}

// finish releases the slot of a task that ran (or could not start):
// complete, or failed with its panic. It returns the supplier's panic.
func (d *door) finish(p slots.Permit, pan *Panic) *Panic {
	reason := slots.TaskComplete()
	if pan != nil {
		reason = slots.TaskFailed(pan)
	}
	return core.Catch[Panic](func() { must(d.tracker.Release(p, reason)) })
}

// neverUsed releases the slot of a task that never started and returns
// the supplier's panic.
func (d *door) neverUsed(p slots.Permit) *Panic {
	return core.Catch[Panic](func() { must(d.tracker.Release(p, slots.NeverUsed())) })
}

// firstPanic returns the first of ps that is not nil.
func firstPanic(ps ...*Panic) *Panic {
	for _, p := range ps {
		if p != nil {
			return p
		}
	}
	return nil
}

// must panics on a Tracker error: the pool uses each permit exactly as
// the protocol says, so an error here is a bug in the pool, not in a
// supplier (the Tracker shields suppliers from misuse).
func must(err error) {
	if err != nil {
		panic(fmt.Sprintf("weft/scheduler: slot protocol broken: %v", err))
	}
}
