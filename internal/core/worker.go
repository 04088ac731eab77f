package core

import (
	"context"
	"runtime/pprof"
	"runtime/trace"
	"strconv"
	"sync/atomic"

	"github.com/weftrt/weft/deque"
	"github.com/weftrt/weft/latch"
	"github.com/weftrt/weft/sleep"
)

// Worker is one of a pool's worker goroutines: its deque, mailbox and
// frame stack, and its goroutine's loop. Users know it as
// scheduler.Worker, a type defined as Worker, which shows none of the
// methods here; join and scope convert a *scheduler.Worker to a *Worker
// (the same pointer) to reach the job API. Everything up to the counters
// is owner-only: only the goroutine running w (see goroutine) touches it.
type Worker struct {
	pool  *Pool
	index int
	deque deque.Deque[Job]
	mail  deque.Injector[Job] // jobs for this worker only (Broadcast)
	term  latch.Owned         // set when the pool terminates
	rng   uint32              // owner-only xorshift state for victim choice

	// frames holds one reusable frame per nesting depth of fork-join
	// calls on this worker (see EnterFrame); depth is how many are in
	// use. Owner-only, like everything up to the counters below.
	frames []frameSlot
	depth  int
	// oldest is where the heartbeat's scan for a private fork starts: no
	// frame below it holds one (see fork.go).
	oldest int
	// beat counts forks down to the next heartbeat check; every is the
	// adaptive budget it restarts from, and checks counts checks up to the
	// next clock read (see heartbeat.go). lastCheck (the latest clock
	// read) and lastPublish are Pool.now readings.
	beat        int32
	every       int32
	checks      int32
	lastCheck   int64
	lastPublish int64
	lastLook    int64 // the clock at the latest check that looked at sleepers with a budget of one
	// wakeNow: the next check may wake a sleeper whatever the interval
	// since lastPublish (see ShareSoon); every check clears it.
	wakeNow bool
	// counting: the latest heartbeat check saw an idle worker, so joins
	// count down toward the next check even deep in a recursion; gated is
	// the owner's copy of gate's gateOwner bit (see gate.go).
	counting bool
	gated    bool

	// inStartHook is set while the goroutine runs Config.OnStart, and
	// jobEnded once a job that the hook ran (the hook may enter the pool:
	// Run runs inline there, and its joins run other jobs while they
	// wait) ended the goroutine with runtime.Goexit. Owner-only: a
	// stand-in that owns w meanwhile clears inStartHook (see standIn).
	inStartHook bool
	jobEnded    bool
	// hookRetried: this goroutine runs the start hook again because a
	// job ended the previous one inside it (see replace). Owner-only.
	hookRetried bool

	// Counters written only by this worker (uncontended atomic adds) and
	// summed by Pool.Stats.
	executed atomic.Uint64
	steals   atomic.Uint64
	taken    atomic.Uint64 // jobs taken from the injector
	// published counts forks a heartbeat moved to the deque. Only the
	// owner adds (rarely: one publication per heartbeat at most).
	published atomic.Uint64
	// replaced counts goroutines that ended through runtime.Goexit and
	// were replaced (see replace); standIns counts Block calls, and
	// handedOver those whose stand-in claimed w (written by the stand-in,
	// which owns w from then on).
	replaced   atomic.Uint64
	standIns   atomic.Uint64
	handedOver atomic.Uint64
	// probes counts deques tried by steal, for tests of the search cost.
	probes atomic.Uint64

	// loops is how many splitting loops w's owner runs, nested (owner-
	// only); looping is loops > 0, stored only when that changes, for
	// idle workers to read (see spin.go). Every worker that runs out of
	// work reads looping, so it sits apart from the counters above, which
	// the owner writes at every job and steal, beside fields written as
	// rarely as it is.
	loops   int
	_       [64]byte
	looping atomic.Bool

	// goroutine identifies the goroutine now running w (see goroutine.go),
	// or is 0 between two goroutines. Written by that goroutine, read by
	// any (Pool.current), hence atomic.
	goroutine atomic.Uintptr
	// blocking is the innermost Block in progress on w (its stand-in,
	// linked to the enclosing ones): the goroutines blocked in their f
	// are still tasks of the pool. Written by w's owner, read by any.
	blocking atomic.Pointer[standIn]

	// gate is zero while a join deep in a recursion may run as plain
	// calls without counting toward the heartbeat (see gate.go). The
	// owner sets and clears gateOwner; idle workers set gateWanted, and
	// the owner clears it. Every access is an SC sync/atomic function
	// (a plain uint32 rather than an atomic.Uint32: its load must keep
	// join.Plain within Go's inlining budget); the ordering argument is
	// in gate.go. It has a cache line of its own, as other workers write
	// it while the owner reads it at every join.
	_    [64]byte
	gate uint32
	_    [60]byte
}

func newWorker(p *Pool, i int) *Worker {
	w := &Worker{pool: p, index: i, rng: uint32(i)*2654435761 + 1, beat: 1, every: 1, gated: true}
	w.gate = gateOwner // depth 0: the forks it keeps start here
	w.term.Init(p.sleep, i)
	return w
}

// Index returns the worker's index, 0 <= Index() < Pool().Workers().
func (w *Worker) Index() int { return w.index }

// Pool returns the pool the worker belongs to.
func (w *Worker) Pool() *Pool { return w.pool }

// main is the loop of w's goroutine. startHook says whether it runs
// Config.OnStart: not in the goroutine that replaces one the start hook
// itself ended with runtime.Goexit (see replace).
func (w *Worker) main(startHook bool) {
	// started: the start hook has returned, or was skipped. If it is
	// false when the goroutine ends, the hook called runtime.Goexit, or a
	// job it ran did (see replace).
	finished, started := false, !startHook
	defer func() {
		// The exit hook is user code too and may call runtime.Goexit
		// (t.FailNow, require.* in a test's hook), which would end this
		// deferred call halfway: what must follow it runs in a deferred
		// call of its own, or Pool.Wait (Close) would wait for this
		// goroutine forever, or the worker would have no goroutine.
		defer func() {
			// Forgotten only after the exit hook: the hook is still w's,
			// so that Close or Shutdown called from it is refused as from
			// a task (it would wait for this goroutine), and Run runs
			// inline. Before the goroutine ends, as the runtime may give
			// its identity to a new one.
			w.goroutine.Store(0)
			if !finished {
				w.replace(started)
				return
			}
			w.pool.exited.Done()
		}()
		// Jobs that the exit hook runs are not the start hook's, even
		// when the start hook is what is ending the goroutine.
		w.inStartHook = false
		if f := w.pool.cfg.OnExit; f != nil {
			f(w.index)
		}
	}()
	w.goroutine.Store(goroutine())
	ctx := pprof.WithLabels(context.Background(), pprof.Labels(
		"weft.pool", w.pool.cfg.Name, "weft.worker", strconv.Itoa(w.index)))
	pprof.SetGoroutineLabels(ctx)
	if f := w.pool.cfg.OnStart; f != nil && startHook {
		w.inStartHook = true
		f(w.index)
		w.inStartHook, w.hookRetried = false, false
	}
	started = true
	w.WaitUntil(&w.term)
	w.drainOnExit()
	finished = true
}

// replace starts a new goroutine for w, whose goroutine is ending before
// the pool told it to: a task called runtime.Goexit, which no deferred
// function can stop. Every job on the way out was released (RunThen), so
// waiters got ErrGoexit; the new goroutine takes over the deque, the
// mailbox and the sleep slot. It starts with a fresh frame stack: frames
// of the unwound joins may still be referenced by thieves finishing their
// halves, and must not be reused.
//
// The start hook can end the goroutine too (a Goexit in OnStart). Run
// again, a hook that always does so would end every replacement before it
// took any work, and the pool would start goroutines for ever, never
// reaching its workers' loop, so that Close would never return. So
// started is false when the goroutine ended inside the start hook, and
// the replacement then does without it.
//
// Unless a job that the hook ran (it may enter the pool: Run runs inline
// there, and a join's wait runs other tasks' jobs) is what called Goexit
// (jobEnded, see executeInHook): that Goexit is no failure of the hook's,
// and the replacement runs the hook again. Once only: the job may be the
// hook's own (a task of a scope it opened), failing every time, and a
// second goroutine ended inside the hook, whatever ended it, is replaced
// without the hook, as above.
func (w *Worker) replace(started bool) {
	retry := !started && w.jobEnded && !w.hookRetried
	w.frames, w.depth, w.oldest = nil, 0, 0
	w.regate()
	w.inStartHook, w.jobEnded, w.hookRetried = false, false, retry
	w.replaced.Add(1)
	go w.main(started || retry)
}

// drainOnExit runs the Broadcast parts still addressed to the worker when
// it exits after a Shutdown gave up waiting: nobody else may run them,
// and their caller would wait forever.
func (w *Worker) drainOnExit() {
	for j, ok := w.mail.Pop(); ok; j, ok = w.mail.Pop() {
		w.Execute(j)
	}
}

// Push puts j on the worker's own deque, where the worker will find it
// again with Pop unless another worker steals it first, and wakes a
// sleeping worker if the sleep protocol says one is needed.
func (w *Worker) Push(j *Job) {
	w.deque.Push(j)
	// Most pushes find the pool quiet; only the others read the deque's
	// top index, which thieves write, to tell whether j is alone in it.
	if s := w.pool.sleep; !s.Quiet() {
		if s.NewJobs(1, w.deque.Len() <= 1) > 0 {
			sleep.Handoff() // we run on: let the woken worker start now
		}
	}
}

// Pop takes the job most recently pushed on the worker's deque, or returns
// nil if the deque is empty (every job pushed was popped or stolen).
func (w *Worker) Pop() *Job {
	j, _ := w.deque.Pop()
	return j
}

// Execute runs j on w, counting it as a job taken from a queue.
func (w *Worker) Execute(j *Job) {
	w.executed.Add(1)
	w.startJob()
	if w.inStartHook {
		w.executeInHook(j)
		return
	}
	j.run(w)
}

// executeInHook is Execute for a job run from inside the start hook. A
// job returns to it normally even when its task panics (jobs catch their
// panics), so unwinding past it is the job's runtime.Goexit: it is
// recorded, so that the goroutine, which ends inside the hook, is not
// taken for one the hook itself ended (see replace). Only here, off the
// common path: the deferred call costs.
func (w *Worker) executeInHook(j *Job) {
	returned := false
	defer func() {
		if !returned {
			w.jobEnded = true
		}
	}()
	j.run(w)
	returned = true
}

// WaitUntil runs other jobs (its own, stolen, injected) until l is set,
// and sleeps through the latch protocol when there are none. l must be
// owned by w.
//
// A waiting worker cannot run its own private forks, so WaitUntil first
// publishes them all (see publishAll); a waiting worker never holds back
// work another worker could do.
func (w *Worker) WaitUntil(l *latch.Owned) {
	if !l.Probe() {
		w.publishAll()
		w.waitUntilCold(l.Core())
	}
}

// WaitOut is WaitUntil for a wait that must outlast runtime.Goexit: if a
// job that w runs while it waits calls Goexit, the goroutine goes on
// waiting for l as it unwinds, so that whoever waits for w's task is
// released only once l is set (the work l stands for has finished), as a
// join's guard waits for its stolen half. Scopes and Broadcast wait with
// it; it costs a deferred call, so the join fast path does not use it.
func (w *Worker) WaitOut(l *latch.Owned) {
	defer func() {
		if l.Probe() {
			return
		}
		if r := recover(); r != nil {
			panic(r) // not a Goexit: jobs catch their panics, so this is no task's; let it through
		}
		w.WaitOut(l) // unwinding from a Goexit in a job run meanwhile
	}()
	w.WaitUntil(l)
}

func (w *Worker) waitUntilCold(l *latch.Core) {
	s := w.pool.sleep
	idle := s.StartLooking(w.index)
	for !l.Probe() {
		if j := w.findWork(idle.Final()); j != nil {
			w.workFound()
			w.Execute(j)
			idle = s.StartLooking(w.index)
			continue
		}
		w.askForForks()
		s.NoWorkFound(&idle, l)
	}
	w.workFound()
}

// workFound ends w's search (sleep.WorkFound) and, if w was the last awake
// idle worker while others sleep, wakes a sleeper for any job that a poster
// left for the idle workers to find: w itself did not take it.
func (w *Worker) workFound() {
	s := w.pool.sleep
	if s.WorkFound() && w.pool.queuedWork() {
		s.NewJobs(1, false)
	}
}

// queuedWork reports whether any deque or the injector holds a job. It is
// called rarely (see workFound), so it may sweep every worker.
func (p *Pool) queuedWork() bool {
	for _, v := range p.workers {
		if !v.deque.IsEmpty() {
			return true
		}
	}
	return !p.injector.IsEmpty()
}

// Yield runs one pending job, if there is one, and reports whether it did.
// A long task can call it to let queued work progress.
func (w *Worker) Yield() bool {
	if !w.IsCurrent() {
		panic("weft/scheduler: Yield on a *Worker that is not the calling goroutine's: " +
			"call it with the *Worker your task received")
	}
	j := w.findWork(true)
	if j == nil {
		return false
	}
	w.Execute(j)
	return true
}

// findWork looks for a job: own deque, own mailbox, other deques, then
// the injector. With all set it tries every other deque; otherwise at most
// sampleVictims of them (see steal).
func (w *Worker) findWork(all bool) *Job {
	if j, ok := w.deque.Pop(); ok {
		return j
	}
	if !w.mail.IsEmpty() {
		if j, ok := w.mail.Pop(); ok {
			return j
		}
	}
	if j := w.steal(all); j != nil {
		return j
	}
	if j, ok := w.pool.injector.Pop(); ok {
		w.taken.Add(1)
		return j
	}
	return nil
}

// sampleVictims is how many deques a search round that is not a worker's
// last before sleeping tries. It keeps the cost of spinning independent of
// the pool's size: a worker's whole trip toward sleep costs
// rounds*sampleVictims probes plus one full sweep, linear in the workers,
// where sweeping every deque every round made a large pool's idle
// searching quadratic.
const sampleVictims = 16

// steal tries the other workers' deques, starting at a random one: all of
// them, or at most sampleVictims; and sweeps again while some steal lost a
// race.
func (w *Worker) steal(all bool) *Job {
	ws := w.pool.workers
	n := uint32(len(ws))
	if n == 1 {
		return nil
	}
	tries := n
	if !all {
		tries = min(n, sampleVictims+1) // +1: one of them may be w itself
	}
	start := w.random() % n
	for {
		retry := false
		w.probes.Add(uint64(tries)) // one add a sweep: an upper bound
		for k := range tries {
			v := ws[(start+k)%n]
			if v == w {
				continue
			}
			switch j, r := v.deque.Steal(); r {
			case deque.Success:
				w.steals.Add(1)
				if trace.IsEnabled() {
					trace.Log(context.Background(), "weft/steal", strconv.Itoa(v.index)+"->"+strconv.Itoa(w.index))
				}
				return j
			case deque.Retry:
				retry = true
			}
		}
		if !retry {
			return nil
		}
	}
}

func (w *Worker) random() uint32 {
	x := w.rng
	x ^= x << 13
	x ^= x >> 17
	x ^= x << 5
	w.rng = x
	return x
}

// Sleep returns the pool's sleep state, the latch.Waker for latches that
// workers of this pool own.
func (w *Worker) Sleep() latch.Waker { return w.pool.sleep }
