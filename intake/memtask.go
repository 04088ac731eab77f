package intake

import (
	"context"
	"fmt"
	"strconv"
	"time"
)

// memDelivery is one delivery of a MemQueue task.
type memDelivery struct {
	q          *MemQueue
	e          *memEntry
	gen        uint64
	deliveries int
}

var _ HandBacker = (*memDelivery)(nil)

func (d *memDelivery) ID() string      { return strconv.FormatUint(d.e.id, 10) }
func (d *memDelivery) Payload() []byte { return d.e.payload }
func (d *memDelivery) Deliveries() int { return d.deliveries }

// Key returns the key the task was put with, "" if none (see Keyed).
func (d *memDelivery) Key() string { return d.e.key }

// Ack removes the task from the queue.
func (d *memDelivery) Ack(context.Context) error {
	return d.settle(func(q *MemQueue, e *memEntry, _ time.Time) {
		q.remove(e)
	})
}

// Nack returns the task, ready after delay.
func (d *memDelivery) Nack(_ context.Context, delay time.Duration) error {
	return d.settle(func(q *MemQueue, e *memEntry, now time.Time) {
		e.gen++ // this delivery is over
		if delay <= 0 {
			q.makeReady(e)
			return
		}
		e.state = memDelayed
		q.delayed++
		e.deadline = now.Add(delay)
		q.schedule(e)
	})
}

// HandBack returns a task that never ran, ready at once, without
// counting the delivery (see HandBacker): a task returned by a Pause or a
// Shutdown must not be terminated by MaxDeliveries for deliveries it
// never ran.
func (d *memDelivery) HandBack(context.Context) error {
	return d.settle(func(q *MemQueue, e *memEntry, _ time.Time) {
		e.gen++ // this delivery is over
		e.deliveries--
		q.makeReady(e)
	})
}

// InProgress extends the lease by the queue's Lease from now.
func (d *memDelivery) InProgress(context.Context) error {
	return d.settle(func(q *MemQueue, e *memEntry, now time.Time) {
		e.deadline = now.Add(q.leaseTime())
		q.schedule(e)
	})
}

// Terminate removes the task and records it as poison.
func (d *memDelivery) Terminate(_ context.Context, reason string) error {
	return d.settle(func(q *MemQueue, e *memEntry, _ time.Time) {
		q.remove(e)
		q.dead = append(q.dead, Terminated{
			ID: d.ID(), Payload: e.payload, Deliveries: e.deliveries, Reason: reason,
		})
	})
}

// settle runs f on the entry if this delivery still holds its lease.
func (d *memDelivery) settle(f func(q *MemQueue, e *memEntry, now time.Time)) error {
	q := d.q
	q.mu.Lock()
	defer q.mu.Unlock()
	now := time.Now()
	// Expire first: a lease that has run out is lost even if no Poll has
	// noticed yet, or a settlement would beat the redelivery it owes.
	q.expire(now)
	e := d.e
	if q.entries[e.id] != e || e.gen != d.gen || e.state != memLeased {
		return fmt.Errorf("%w: task %s, delivery %d", ErrLeaseLost, d.ID(), d.deliveries)
	}
	f(q, e, now)
	return nil
}
