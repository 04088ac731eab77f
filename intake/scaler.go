package intake

import "sync"

// The poller count follows how often polls come back empty, smoothed over
// the last few polls. It shrinks while polls are often empty: the pollers
// outnumber the work. It grows while polls are rarely empty and come back
// full with a sizeable batch (at least a quarter of MaxBatch): the source
// had more than was asked for, and slots piled up free while the pollers
// were busy, so another poller would have put them to work sooner. Small
// full batches mean the pollers already keep up with the slots as they
// free, and another poller would only split the same tasks into more,
// smaller polls, each a round trip. Between the thresholds the count holds
// still, so that noise does not make it chatter.
const (
	emptyWeight = 0.25 // weight of the latest poll in the smoothed empty rate
	growBelow   = 0.2  // grow while the empty rate is below this...
	shrinkAbove = 0.5  // ...shrink while it is above this
)

// scaler keeps the number of pollers between a floor and a ceiling. A
// poller asks it, before each poll, whether to retire, and tells it after
// each successful poll how many tasks it asked for and got; when the
// target rises above the pollers running, the poller that reported starts
// another.
type scaler struct {
	mu        sync.Mutex
	min, max  int
	growBatch int     // the least full batch that argues for another poller
	target    int     // pollers wanted; min <= target <= max
	active    int     // poller goroutines running (or about to)
	emptyRate float64 // smoothed fraction of empty polls
	since     int     // polls observed since target last changed
	stopped   bool
	done      chan struct{} // closed when stopped and active is 0
}

func (s *scaler) init(lo, hi, maxBatch int) {
	s.min, s.max, s.target = lo, hi, lo
	s.growBatch = max(1, maxBatch/4)
	s.emptyRate = (growBelow + shrinkAbove) / 2 // no evidence either way yet
	s.done = make(chan struct{})
}

// enter counts a poller about to start.
func (s *scaler) enter() {
	s.mu.Lock()
	s.active++
	s.mu.Unlock()
}

// retire reports whether the calling poller should exit (the worker is
// stopping, or more pollers run than the target); if so it is no longer
// counted.
func (s *scaler) retire() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.stopped && s.active <= s.target {
		return false
	}
	s.active--
	if s.stopped && s.active == 0 {
		close(s.done)
	}
	return true
}

// leave uncounts a poller whose goroutine runtime.Goexit ended (see
// pollExited).
func (s *scaler) leave() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.active--
	if s.stopped && s.active == 0 {
		close(s.done)
	}
}

// observe records a poll that asked for asked tasks and got got, and
// reports whether the caller should start one more poller (already
// counted).
func (s *scaler) observe(got, asked int) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	empty := 0.0
	if got == 0 {
		empty = 1
	}
	s.emptyRate += emptyWeight * (empty - s.emptyRate)
	s.since++
	// Let about every poller report between two changes: one burst of
	// empty polls from all of them is one piece of evidence, not many.
	if s.since >= s.target {
		switch {
		case s.emptyRate < growBelow && got == asked && asked >= s.growBatch && s.target < s.max:
			s.target++
			s.since = 0
		case s.emptyRate > shrinkAbove && s.target > s.min:
			s.target--
			s.since = 0
		}
	}
	if s.stopped || s.active >= s.target {
		return false
	}
	s.active++
	return true
}

// stop makes every poller retire at its next check.
func (s *scaler) stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped {
		return
	}
	s.stopped = true
	if s.active == 0 {
		close(s.done)
	}
}

// counts returns the pollers running and the target.
func (s *scaler) counts() (active, target int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.active, s.target
}
