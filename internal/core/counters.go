package core

// Counters are the pool's activity counters, summed over its workers.
// Each worker adds to its own (uncontended atomic adds), so the hot paths
// never share a counter; a sum taken while workers run is not atomic
// across figures.
type Counters struct {
	Executed  uint64 // jobs taken from a queue and run
	Steals    uint64 // jobs taken from another worker's deque
	Taken     uint64 // jobs taken from the injector
	Published uint64 // forks a heartbeat moved to a deque
	Replaced  uint64 // goroutines replaced after runtime.Goexit
	Blocked   uint64 // Worker.Block calls
	// HandedOver counts Blocks whose stand-in took the worker over:
	// those whose f had not returned by the time it ran.
	HandedOver uint64
	Sleeps     uint64 // times a worker blocked for lack of work
	Wakeups    uint64 // times a blocked worker was woken
	Probes     uint64 // deques tried by steal (an upper bound)
}

// Counters returns the sums of the workers' counters.
func (p *Pool) Counters() Counters {
	var c Counters
	for _, w := range p.workers {
		c.Executed += w.executed.Load()
		c.Steals += w.steals.Load()
		c.Taken += w.taken.Load()
		c.Published += w.published.Load()
		c.Replaced += w.replaced.Load()
		c.Blocked += w.standIns.Load()
		c.HandedOver += w.handedOver.Load()
		c.Probes += w.probes.Load()
		ws := p.sleep.WorkerStats(w.index)
		c.Sleeps += ws.Sleeps
		c.Wakeups += ws.Wakeups
	}
	return c
}
