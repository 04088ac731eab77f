package core

import (
	"sync/atomic"

	"github.com/weftrt/weft/latch"
)

// Block runs f, which may block for a long time (on I/O, a channel, a lock,
// another pool), while another goroutine stands in for w: it runs w's
// queued work, steals and sleeps exactly as w would, so the pool keeps all
// its workers and the tasks that f may be waiting for still run, even on a
// one-worker pool. It is Go's hand-off of a P around a system call, and
// Java's ForkJoinPool.managedBlock, for weft's workers.
//
// Use it around any wait that can last longer than a few microseconds or
// that waits for other work of the same pool: without it the worker sits
// idle, and if every worker waits for work queued behind it the pool
// deadlocks. A join whose halves wait for each other needs it too: Block
// first publishes the worker's private forks, so the other half can run.
// Not a join.Call deep in a recursion: that one made no fork (see Direct).
//
// f must not use w (the stand-in owns it until f returns). When f returns,
// Block waits for the stand-in to finish the job it is running, if any,
// and returns on w's own goroutine; a panic in f passes through Block
// after that. An f that returns before the stand-in has started costs no
// wait at all: the stand-in, when it runs, finds it is not needed and
// ends without touching w.
func (w *Worker) Block(f func()) {
	if f == nil {
		panic("weft/scheduler: Block with a nil function")
	}
	if !w.IsCurrent() {
		panic("weft/scheduler: Block on a *Worker that is not the calling goroutine's: " +
			"call it with the *Worker your task received")
	}
	w.publishAll()
	s := w.standIn()
	defer s.stop()
	f()
}

// standIn is a goroutine running w's loop while w's own goroutine is
// blocked in Block.
type standIn struct {
	w *Worker
	// claim says who owns w while f runs: standInPending until the
	// stand-in's goroutine or stop, whichever comes first, moves it on by
	// CAS. The stand-in's CAS to standInRunning makes it w's owner, and
	// stop then halts it and waits for done as before. Stop's CAS to
	// standInCancelled means the stand-in never started: its goroutine,
	// when it runs, fails its CAS and ends having touched nothing of w's,
	// so stop may hand w straight back to the blocked task. The CASes are
	// SC and exactly one succeeds; the order between the goroutines is
	// then the go statement's (Block before the stand-in) when the
	// stand-in wins, and nothing is shared when stop does.
	claim atomic.Int32
	prev  *standIn      // w's enclosing Block's stand-in, if f of a stand-in's job blocks too
	self  uintptr       // w's own goroutine, restored when the stand-in stops
	halt  latch.Owned   // set by stop; the stand-in waits on it as w
	done  chan struct{} // closed once the stand-in is out of w
	// hook: w's own goroutine is in the start hook (w.inStartHook), which
	// the stand-in is not: its jobs' Goexits are no concern of the hook's.
	// Put back by stop.
	hook bool
}

func (w *Worker) standIn() *standIn {
	s := &standIn{w: w, hook: w.inStartHook, self: w.goroutine.Load(), done: make(chan struct{})}
	w.inStartHook = false
	s.halt.Init(w.pool.sleep, w.index)
	s.prev = w.blocking.Load()
	w.blocking.Store(s)
	w.standIns.Add(1)
	// From here on the stand-in owns w, though it has not started yet:
	// the calling goroutine, about to run f, must no longer pass for w's
	// (IsCurrent, Pool.Current), or a Run from f would run inline on w
	// beside the stand-in. The stand-in records its own identity.
	w.goroutine.Store(0)
	// Everything w's goroutine did to w happens before the go statement,
	// so the stand-in may act as w's owner once its claim succeeds. The
	// goroutine counts as the pool's until it ends, so that Close waits
	// for one that stop cancelled and the runtime has not yet run.
	w.pool.exited.Add(1)
	go s.start()
	return s
}

// What a standIn's claim holds.
const (
	standInPending   = iota // started, not yet w's owner
	standInRunning          // w's owner until stop halts it
	standInCancelled        // stop came first: never w's owner
)

// start is the stand-in goroutine: it runs w's loop unless f has already
// returned. A Block whose f returns at once (a wait already over) so
// costs a goroutine start and no hand-over. Waiting for the stand-in
// instead would make each such Block a ping-pong between two goroutines
// through the processor's next-goroutine slot, which inherits the time
// slice: on one processor, a task calling Block in a loop kept every
// other goroutine waiting for up to 10 ms at each turn.
func (s *standIn) start() {
	if !s.claim.CompareAndSwap(standInPending, standInRunning) {
		s.w.pool.exited.Done()
		return
	}
	s.w.handedOver.Add(1)
	s.run()
}

// run runs w's loop until stop halts it. Its goroutine is counted in the
// pool's exited, which the goroutine that ends the chain (a replacement
// after a Goexit passes the count on) gives back.
func (s *standIn) run() {
	finished := false
	defer func() {
		if !finished {
			s.replace()
			return
		}
		// Forget this goroutine before stop may go on: once it has ended,
		// the runtime may give its descriptor to a new goroutine, which
		// must not pass for w's owner (IsCurrent, Pool.Current) in the
		// window before stop puts the blocked task's identity back.
		s.w.goroutine.Store(0)
		close(s.done)
		s.w.pool.exited.Done()
	}()
	s.w.goroutine.Store(goroutine())
	s.w.WaitUntil(&s.halt)
	finished = true
}

// replace starts a new stand-in goroutine in place of one that a job
// ended with runtime.Goexit before stop told it to: without it nobody
// would run w's loop while Block's f blocks, and whatever f waits for
// could be queued behind it. As in Worker.replace, every job on the way
// out was released (RunThen), and the frames above the blocked task's
// depth, which the unwound joins used, are not reused.
func (s *standIn) replace() {
	w := s.w
	w.goroutine.Store(0) // the runtime may reuse this goroutine's identity
	w.frames = w.frames[:w.depth:w.depth]
	w.oldest = min(w.oldest, w.depth)
	w.regate()
	w.replaced.Add(1)
	go s.run()
}

// stop ends the stand-in and makes the calling goroutine w's owner again.
// A stand-in that has not claimed w is cancelled (see claim). One that has
// is halted: setting halt wakes it if it sleeps on it; it returns from
// WaitUntil between two jobs, and closing done makes all it did to w
// happen before stop returns.
func (s *standIn) stop() {
	if !s.claim.CompareAndSwap(standInPending, standInCancelled) {
		s.halt.Set()
		<-s.done
	}
	s.w.blocking.Store(s.prev)
	s.w.inStartHook = s.hook
	s.w.goroutine.Store(s.self)
}

// blockedIn reports whether goroutine g is a task of w blocked in Block's
// f: still a task of the pool, though w now runs on a stand-in.
func (w *Worker) blockedIn(g uintptr) bool {
	for s := w.blocking.Load(); s != nil; s = s.prev {
		if s.self == g {
			return true
		}
	}
	return false
}
