package core

// IsCurrent reports whether w runs on the calling goroutine: whether the
// caller is the task w was handed to (or a function it called). A *Worker
// used anywhere else has escaped its task, which join, scope and the race
// detector builds check.
func (w *Worker) IsCurrent() bool { return w.goroutine.Load() == goroutine() }

// Current returns the worker of p that runs on the calling goroutine, or
// nil if the caller is not one of p's workers. It is what lets the
// blocking entry points notice a task calling them on its own pool: Run
// runs inline instead of blocking the worker on itself, Close and
// Shutdown refuse to wait for their own task. A linear scan of atomic
// loads: cheaper than any map up to hundreds of workers, and the callers
// block for microseconds anyway.
func (p *Pool) Current() *Worker {
	g := goroutine()
	for _, w := range p.workers {
		if w.goroutine.Load() == g {
			return w
		}
	}
	return nil
}

// InTask reports whether the caller is a task of p: one of p's workers,
// or a task blocked in Worker.Block (whose worker a stand-in runs
// meanwhile). Close and Shutdown use it: either would wait for its own
// caller forever.
func (p *Pool) InTask() bool {
	g := goroutine()
	for _, w := range p.workers {
		if w.goroutine.Load() == g || w.blockedIn(g) {
			return true
		}
	}
	return false
}
