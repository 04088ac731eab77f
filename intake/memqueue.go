package intake

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"time"
)

// MemQueueConfig configures a MemQueue. The zero value gives the
// defaults; a negative field is refused (see NewMemQueue).
type MemQueueConfig struct {
	// Lease is how long a delivered task stays leased without Ack, Nack,
	// Terminate or InProgress before it is delivered again. 0 means the
	// default, 30s.
	Lease time.Duration
	// PollWait is how long Poll waits for a task before it returns empty.
	// 0 means the default, 1s.
	PollWait time.Duration
}

// The defaults that a MemQueueConfig field of 0, and the zero MemQueue,
// stand for.
const (
	defaultMemLease    = 30 * time.Second
	defaultMemPollWait = time.Second
)

// MemQueue is the in-process Source: a queue in memory with at-least-once
// delivery. Poll leases tasks out; a lease ends with Ack (the task is
// gone), Nack (it comes back, after a delay), Terminate (it is gone and
// recorded as poison), HandBack (it comes back at once, and the delivery
// does not count: it never ran), or expiry (it comes back at once, and its
// delivery count says so). A settlement through a delivery whose lease has already
// ended returns ErrLeaseLost and changes nothing: the task belongs to its
// newer delivery.
//
// A task put with a key (PutKey) belongs to that key's group, as in a
// FIFO queue's message groups: the group's tasks are delivered one at a
// time, in the order they were put. The next one becomes ready only when
// the one before it is acknowledged or terminated; a Nack, an expired
// lease or a delay returns that same task to the head of its group. So
// two tasks with one key never run at once, and a key's tasks run in put
// order even across retries, while a slow or failing key holds back only
// its own group: its later tasks wait in the queue, holding no slot of
// any worker.
//
// Ack and Terminate let go of the task at once: from then on the queue
// holds nothing of it (Terminate keeps the record that Terminated returns,
// payload included). A Nack keeps the task, which is still to run, and
// nothing of the delivery it ends.
//
// It starts no goroutine: leases and delays expire when a Poll looks,
// and a waiting Poll sets its timer to the earliest of them. The queue
// lives as long as the process; it does not persist.
//
// Its methods are safe for concurrent use. The zero value is an empty
// queue with the default settings, as NewMemQueue(MemQueueConfig{})
// returns. A MemQueue must not be copied after first use.
type MemQueue struct {
	// lease and pollWait are the MemQueueConfig fields, 0 for the
	// default (see leaseTime and pollWaitTime). NewMemQueue sets them
	// and nothing writes them after, so they are read without the lock.
	lease, pollWait time.Duration

	mu     sync.Mutex
	nextID uint64
	// entries holds the tasks not yet acknowledged or terminated. It and
	// groups are made by the first PutKey (nil till then: the zero
	// MemQueue is usable), so a read of either before that finds nothing.
	entries map[uint64]*memEntry
	ready   []*memEntry // waiting for delivery, oldest first
	timers  timerHeap   // leased and delayed entries, soonest deadline first
	delayed int         // entries in memDelayed
	waiters int         // Polls waiting for a task
	// wake is closed (and replaced) when a task becomes ready and
	// someone waits. The first Poll that waits makes it; it is only
	// closed while waiters > 0, so never while nil.
	wake chan struct{}
	dead []Terminated // the tasks terminated, in order
	// groups holds, for every key with a task in the queue, the tasks
	// behind its head (the one task of the key that is ready, leased or
	// delayed). A key with no task left has no entry.
	groups map[string]*memGroup
	behind int // tasks waiting behind their key's head, in all groups
}

// memGroup is a key's tasks in put order: the head, which alone can be
// delivered, and those waiting behind it.
type memGroup struct {
	head    *memEntry
	waiting []*memEntry
}

// Terminated records a task settled as poison.
type Terminated struct {
	ID         string
	Payload    []byte
	Deliveries int
	Reason     string
}

type memState uint8

const (
	memReady   memState = iota // in ready, waiting for delivery
	memLeased                  // delivered; deadline is when the lease ends
	memDelayed                 // nacked with a delay; deadline is when it is ready
)

// memEntry is one task. gen names its current delivery: a delivery is
// live while its gen matches, so a settlement from an older one is
// recognised and ignored.
type memEntry struct {
	id         uint64
	key        string // "" for a task without a key
	payload    []byte
	deliveries int
	state      memState
	gen        uint64
	deadline   time.Time // leased or delayed: when the lease or the delay ends
	timer      int       // index in MemQueue.timers while leased or delayed, else noTimer
}

// NewMemQueue returns an empty queue with the settings of cfg.
//
// It panics, as make does for a negative size, if a field of cfg is
// negative: the settings are fixed in code, and a queue that quietly ran
// on the default would hide the mistake. The panic value is an error
// wrapping ErrConfig that names the field and the value, such as
// "weft/intake: invalid config: MemQueueConfig.Lease -1s: want >= 0 (0:
// the default, 30s)".
func NewMemQueue(cfg MemQueueConfig) *MemQueue {
	for _, f := range []struct {
		name     string
		v, deflt time.Duration
	}{
		{"Lease", cfg.Lease, defaultMemLease},
		{"PollWait", cfg.PollWait, defaultMemPollWait},
	} {
		if f.v < 0 {
			panic(fmt.Errorf("%w: MemQueueConfig.%s %v: want >= 0 (0: the default, %v)", ErrConfig, f.name, f.v, f.deflt))
		}
	}
	return &MemQueue{lease: cfg.Lease, pollWait: cfg.PollWait}
}

// leaseTime returns how long a delivery stays leased: the configured
// Lease, or the default.
func (q *MemQueue) leaseTime() time.Duration {
	if q.lease == 0 {
		return defaultMemLease
	}
	return q.lease
}

// pollWaitTime returns how long an empty Poll waits: the configured
// PollWait, or the default.
func (q *MemQueue) pollWaitTime() time.Duration {
	if q.pollWait == 0 {
		return defaultMemPollWait
	}
	return q.pollWait
}

// Put queues a task with payload (kept, not copied) and returns its ID.
func (q *MemQueue) Put(payload []byte) string { return q.PutKey("", payload) }

// PutKey queues a task with key and payload (kept, not copied) and
// returns its ID. Tasks with the same non-empty key are delivered one at a
// time, in put order (see MemQueue); an empty key is Put.
func (q *MemQueue) PutKey(key string, payload []byte) string {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.entries == nil { // the first Put
		q.entries = make(map[uint64]*memEntry)
		q.groups = make(map[string]*memGroup)
	}
	q.nextID++
	e := &memEntry{id: q.nextID, key: key, payload: payload, timer: noTimer}
	q.entries[e.id] = e
	if key != "" {
		if g := q.groups[key]; g != nil {
			g.waiting = append(g.waiting, e)
			q.behind++
			return strconv.FormatUint(e.id, 10)
		}
		q.groups[key] = &memGroup{head: e}
	}
	q.makeReady(e)
	return strconv.FormatUint(e.id, 10)
}

// remove takes a settled (acknowledged or terminated) entry out of the
// queue; the next task of its key, if any, becomes ready.
func (q *MemQueue) remove(e *memEntry) {
	q.timers.drop(e)
	delete(q.entries, e.id)
	if e.key == "" {
		return
	}
	g := q.groups[e.key]
	if len(g.waiting) == 0 {
		delete(q.groups, e.key)
		return
	}
	g.head = g.waiting[0]
	g.waiting[0] = nil
	g.waiting = g.waiting[1:]
	q.behind--
	q.makeReady(g.head)
}

// Poll waits up to the queue's PollWait for a task and returns up to n of
// those ready, each leased to the caller. It returns ctx.Err() if ctx ends
// first.
func (q *MemQueue) Poll(ctx context.Context, n int) ([]Task, error) {
	if n < 1 {
		return nil, nil
	}
	giveUp := time.Now().Add(q.pollWaitTime())
	var timer *time.Timer
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	for {
		q.mu.Lock()
		now := time.Now()
		q.expire(now)
		if len(q.ready) > 0 {
			tasks := q.deliver(now, n)
			q.mu.Unlock()
			return tasks, nil
		}
		wait := giveUp.Sub(now)
		if next, ok := q.timers.next(); ok {
			wait = min(wait, next.Sub(now))
		}
		if giveUp.Sub(now) <= 0 {
			q.mu.Unlock()
			return nil, nil // an empty poll
		}
		q.waiters++
		if q.wake == nil { // the first Poll to wait
			q.wake = make(chan struct{})
		}
		wake := q.wake
		q.mu.Unlock()

		if timer == nil {
			timer = time.NewTimer(wait)
		} else {
			timer.Reset(wait)
		}
		select {
		case <-wake:
		case <-timer.C:
		case <-ctx.Done():
		}
		q.mu.Lock()
		q.waiters--
		q.mu.Unlock()
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
}

// deliver leases up to n ready tasks.
func (q *MemQueue) deliver(now time.Time, n int) []Task {
	k := min(n, len(q.ready))
	tasks := make([]Task, k)
	for i, e := range q.ready[:k] {
		e.state = memLeased
		e.gen++
		e.deliveries++
		e.deadline = now.Add(q.leaseTime())
		q.schedule(e)
		tasks[i] = &memDelivery{q: q, e: e, gen: e.gen, deliveries: e.deliveries}
	}
	clear(q.ready[:k])
	q.ready = q.ready[k:]
	return tasks
}

// expire makes ready the tasks whose lease or delay has ended.
func (q *MemQueue) expire(now time.Time) {
	for {
		e, ok := q.timers.popDue(now)
		if !ok {
			return
		}
		if e.state == memDelayed {
			q.delayed--
		}
		q.makeReady(e)
	}
}

// makeReady queues e for delivery and wakes the waiting Polls.
func (q *MemQueue) makeReady(e *memEntry) {
	q.timers.drop(e)
	e.state = memReady
	q.ready = append(q.ready, e)
	q.wakeWaiters()
}

// schedule sets e's timer to e.deadline, the end of its lease or delay.
// One that is now the soonest wakes the waiting Polls: each set its timer
// to the soonest end it knew of, which is later, and would leave the task
// unready until then (up to PollWait).
func (q *MemQueue) schedule(e *memEntry) {
	q.timers.set(e)
	if next, _ := q.timers.next(); !e.deadline.After(next) {
		q.wakeWaiters()
	}
}

func (q *MemQueue) wakeWaiters() {
	if q.waiters > 0 {
		close(q.wake)
		q.wake = make(chan struct{})
	}
}

// Lease returns how long a delivery stays leased.
func (q *MemQueue) Lease() time.Duration { return q.leaseTime() }

// Backlog returns the tasks waiting for delivery: ready, returned with a
// delay, or waiting behind an earlier task of their key. A lease that has
// run out counts once a Poll has seen it.
func (q *MemQueue) Backlog() int64 {
	q.mu.Lock()
	defer q.mu.Unlock()
	return int64(len(q.ready) + q.delayed + q.behind)
}

// Len returns the tasks not yet acknowledged or terminated: waiting,
// delayed or leased.
func (q *MemQueue) Len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.entries)
}

// Terminated returns the tasks settled as poison, in the order they were.
func (q *MemQueue) Terminated() []Terminated {
	q.mu.Lock()
	defer q.mu.Unlock()
	return append([]Terminated(nil), q.dead...)
}
