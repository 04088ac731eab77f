package intake

import (
	"sync"
)

// registry holds the worker's deliveries from poll to settlement, so
// that Shutdown can reclaim those not started, wait for the rest, and the
// heartbeat can find them all.
type registry struct {
	mu   sync.Mutex
	live map[*delivery]struct{}
	// draining is set once no task can be added any more (the pollers
	// have exited); quiet is closed when draining is set and live is
	// empty, whichever comes last.
	draining bool
	quiet    chan struct{}
}

func (r *registry) init() {
	r.live = make(map[*delivery]struct{})
	r.quiet = make(chan struct{})
}

func (r *registry) add(t *delivery) {
	r.mu.Lock()
	r.live[t] = struct{}{}
	r.mu.Unlock()
}

func (r *registry) remove(t *delivery) {
	r.mu.Lock()
	delete(r.live, t)
	if r.draining && len(r.live) == 0 {
		close(r.quiet)
	}
	r.mu.Unlock()
}

// drain marks that no task will be added, and returns the tasks still
// held.
func (r *registry) drain() []*delivery {
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

func (r *registry) snapshot(dst []*delivery) []*delivery {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.snapshotLocked(dst)
}

func (r *registry) snapshotLocked(dst []*delivery) []*delivery {
	dst = dst[:0]
	for t := range r.live {
		dst = append(dst, t)
	}
	return dst
}
