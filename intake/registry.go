package intake

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/weftrt/weft/slots"
)

// A task's record moves queued -> running -> settling, or queued ->
// running -> ended -> settling when its handler returns while the
// settlements in flight are at MaxSettling, or queued -> settling when it
// is handed back unrun. Leaving queued is a CAS, so of a pool worker
// starting the task and a Shutdown reclaiming it exactly one wins.
const (
	taskQueued   int32 = iota // given to the pool, not started
	taskRunning               // the handler runs
	taskEnded                 // the handler returned; waiting for room to settle (its lease is still kept)
	taskSettling              // being acknowledged, returned or terminated
)

// inflight is a task the worker holds: polled, with its slot's permit,
// and not yet settled.
type inflight struct {
	task Task
	key  string     // the task's key (Keyed), "" if none; set by admit
	ep   *pollEpoch // the epoch of the poll that brought it (see dispatch)
	poll uint64     // the number of that poll (see pollClock)
	// unmarked says the supplier failed marking r's slot, so r went back
	// unrun (markUsed). Only the goroutine running r touches it.
	unmarked bool
	// back says r must go back unrun when its turn in its key's line
	// comes, even if the worker is not halted then (see keyLines.enter,
	// handBackInOrder). Written before r enters its line, or by enter,
	// under the line's lock; read by whoever takes r from the line.
	back   bool
	permit slots.Permit
	state  atomic.Int32
	// deliveries is the task's Deliveries, set by admit; an int32, in
	// state's padding, so that the record is no bigger.
	deliveries int32
	lastBeat   atomic.Int64 // unix nanoseconds of delivery or the last InProgress
	delivered  time.Time
}

// registry holds the worker's tasks from poll to settlement, so that
// Shutdown can reclaim those the pool has not started, wait for the rest,
// and the heartbeat can find them all.
type registry struct {
	mu   sync.Mutex
	live map[*inflight]struct{}
	// draining is set once no task can be added any more (the pollers
	// have exited); quiet is closed when draining is set and live is
	// empty, whichever comes last.
	draining bool
	quiet    chan struct{}
}

func (r *registry) init() {
	r.live = make(map[*inflight]struct{})
	r.quiet = make(chan struct{})
}

func (r *registry) add(t *inflight) {
	r.mu.Lock()
	r.live[t] = struct{}{}
	r.mu.Unlock()
}

func (r *registry) remove(t *inflight) {
	r.mu.Lock()
	delete(r.live, t)
	if r.draining && len(r.live) == 0 {
		close(r.quiet)
	}
	r.mu.Unlock()
}

// drain marks that no task will be added, and returns the tasks still
// held.
func (r *registry) drain() []*inflight {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.draining {
		r.draining = true
		if len(r.live) == 0 {
			close(r.quiet)
		}
	}
	return r.snapshotLocked(nil)
}

func (r *registry) snapshot(dst []*inflight) []*inflight {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.snapshotLocked(dst)
}

func (r *registry) snapshotLocked(dst []*inflight) []*inflight {
	dst = dst[:0]
	for t := range r.live {
		dst = append(dst, t)
	}
	return dst
}
