package scheduler

import "github.com/weftrt/weft/slots"

// Stats is a snapshot of a pool's activity counters. Each figure is summed
// from per-worker counters when Stats is called, so the hot paths never
// share a counter; a snapshot taken while workers run is not atomic across
// figures.
type Stats struct {
	Workers int // worker goroutines
	// Idle counts the workers looking for work or asleep, and Sleeping
	// those of them asleep, read together from the sleep protocol's
	// counters word (one atomic load); Workers less Idle are busy.
	Idle, Sleeping int
	Executed       uint64 // jobs a worker took from a queue and ran (not counting a join's second half that its own worker popped back)
	Steals         uint64 // jobs taken from another worker's deque
	// Published counts forks that a heartbeat moved from a worker's
	// private stack to its deque, where thieves can take them; the other
	// forks cost no shared-memory operation at all.
	Published uint64
	// Replaced counts worker goroutines started in place of one that a
	// task (or the start hook, see WithStartHook) ended with
	// runtime.Goexit (see ErrGoexit).
	Replaced uint64
	// Blocked counts Worker.Block calls: waits during which a stand-in
	// goroutine could run the worker's loop (one whose f returned before
	// the stand-in started hands nothing over).
	Blocked  uint64
	Injected uint64 // jobs that entered from outside (Run, Spawn)
	Sleeps   uint64 // times a worker blocked for lack of work
	Wakeups  uint64 // times a blocked worker was woken
	Pending  int64  // outside tasks accepted and not yet finished
	// Slots are the admission figures of the pool's slot tracker: slots
	// in use, reserved but not yet used, available (when bounded),
	// refusals (TrySpawn found no slot).
	Slots slots.Stats
}

// Stats returns the pool's counters.
func (p *Pool) Stats() Stats {
	c := p.eng.Counters()
	idle, sleeping := p.eng.Sleep().Counts()
	return Stats{
		Workers:   p.Workers(),
		Idle:      idle,
		Sleeping:  sleeping,
		Executed:  c.Executed,
		Steals:    c.Steals,
		Published: c.Published,
		Replaced:  c.Replaced,
		Blocked:   c.Blocked,
		Injected:  p.injectCount.Load(),
		Sleeps:    c.Sleeps,
		Wakeups:   c.Wakeups,
		Pending:   p.pending.Load(),
		Slots:     p.door.tracker.Stats(),
	}
}
