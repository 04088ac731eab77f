package scheduler_test

import (
	"context"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/weftrt/weft/scheduler"
	"github.com/weftrt/weft/slots"
)

// hangGuard fails the test if done is not closed in a long time. It is a
// detector only: the passing test never waits on it.
func hangGuard(t *testing.T, what string, done <-chan struct{}) {
	t.Helper()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatalf("hang: %s", what)
	}
}

// A job that the stand-in of a Block runs calls runtime.Goexit: the
// stand-in goroutine dies, and a new one must take its place, or nobody
// runs the worker's loop while f blocks and a task queued behind it never
// runs.
func TestGoexitOnStandIn(t *testing.T) {
	handled := make(chan *scheduler.Panic, 1)
	p := pool(t, scheduler.WithWorkers(1), scheduler.WithPanicHandler(func(pp *scheduler.Panic) { handled <- pp }))
	ctx := context.Background()
	ch := make(chan struct{})
	blocking := make(chan struct{})
	runDone := make(chan struct{})
	go func() {
		defer close(runDone)
		_ = p.Run(ctx, func(w *scheduler.Worker) error {
			w.Block(func() { close(blocking); <-ch })
			return nil
		})
	}()
	<-blocking
	// runs on the stand-in, and ends its goroutine
	require.NoError(t, p.Spawn(ctx, func(*scheduler.Worker) { runtime.Goexit() }))
	requireGoexit(t, <-handled)
	// must run on the stand-in (the only runner of worker 0's loop)
	require.NoError(t, p.Spawn(ctx, func(*scheduler.Worker) { close(ch) }))
	hangGuard(t, "the task queued behind a Block whose stand-in Goexited never runs", runDone)
	p.Close()
}

// Close called inside Block's f is Close from a task of the pool: it
// would wait for its own task forever, so it must panic, as Close from
// the task itself does.
func TestCloseFromBlockPanics(t *testing.T) {
	p := pool(t, scheduler.WithWorkers(1))
	got := make(chan any, 1)
	runDone := make(chan struct{})
	go func() {
		defer close(runDone)
		_ = p.Run(context.Background(), func(w *scheduler.Worker) error {
			w.Block(func() {
				for w.IsCurrent() { // until the stand-in runs w (at once, with the fix)
					runtime.Gosched()
				}
				got <- catch(p.Close)
			})
			return nil
		})
	}()
	hangGuard(t, "Close from inside Block's f waits for its own task", runDone)
	require.Contains(t, <-got, "called from a task of the pool")
	p.Close()
}

// Broadcast from a task runs the caller's own part itself; when that
// part calls runtime.Goexit, the caller's waiter must be released
// (ErrGoexit) only once the other parts have run, as a join's guard waits
// for the other half. The other
// part tells the two cases apart without timing: if the goroutine that
// Goexited was already replaced, its Run caller was released first; if
// instead a worker sleeps (the caller waiting for the parts) while no
// goroutine was replaced yet, the caller waits as it must.
func TestGoexitInOwnBroadcastPart(t *testing.T) {
	p := pool(t, scheduler.WithWorkers(2))
	defer p.Close()
	releasedEarly := make(chan bool, 1)
	v := catch(func() {
		_ = p.Run(context.Background(), func(w *scheduler.Worker) error {
			owner := w.Index()
			_ = p.Broadcast(context.Background(), func(w *scheduler.Worker) {
				if w.Index() == owner {
					runtime.Goexit()
				}
				releasedEarly <- callerReleasedEarly(p)
			})
			return nil
		})
	})
	requireGoexit(t, v)
	require.False(t, <-releasedEarly, "Run's caller was released while another Broadcast part still ran")
}

// Inside Block's f the stand-in owns
// w; the blocked goroutine must not pass for w's owner, or Run from f
// runs inline on w at the same time as the stand-in runs w's loop.
func TestBlockedTaskIsNotCurrent(t *testing.T) {
	p := pool(t, scheduler.WithWorkers(1))
	defer p.Close()
	for range 20 {
		var current, inline bool
		require.NoError(t, p.Run(context.Background(), func(w *scheduler.Worker) error {
			w.Block(func() {
				current = w.IsCurrent()
				g := goid()
				_ = p.Run(context.Background(), func(*scheduler.Worker) error {
					inline = goid() == g
					return nil
				})
			})
			return nil
		}))
		require.False(t, current, "the goroutine blocked in f passes for w's owner")
		require.False(t, inline, "Run from Block's f ran inline on w, beside the stand-in")
	}
}

// goid returns the calling goroutine's ID.
func goid() string {
	var buf [64]byte
	n := runtime.Stack(buf[:], false)
	return strings.Fields(string(buf[:n]))[1]
}

// Yield on a *Worker from another goroutine would pop the worker's deque
// (owner-only) and run its jobs there, beside the owner: refused, as
// Block refuses it.
func TestYieldOffGoroutine(t *testing.T) {
	p := pool(t, scheduler.WithWorkers(1))
	defer p.Close()
	require.NoError(t, p.Run(context.Background(), func(w *scheduler.Worker) error {
		got := make(chan any)
		go func() { got <- catch(func() { w.Yield() }) }()
		assert.Contains(t, <-got, "not the calling goroutine's", "Yield from another goroutine did not panic")
		return nil
	}))
}

// A worker that waits for the parts of its Broadcast runs other jobs
// meanwhile; when one of them calls runtime.Goexit, the broadcasting
// task's waiter must still be released only once every part has run. Only worker 0 (the caller, waiting) can take
// the spawned job: worker 1 is busy running its part.
func TestGoexitWhileBroadcastWaits(t *testing.T) {
	handled := make(chan *scheduler.Panic, 1)
	p := pool(t, scheduler.WithWorkers(2), scheduler.WithPanicHandler(func(pp *scheduler.Panic) { handled <- pp }))
	defer p.Close()
	releasedEarly := make(chan bool, 1)
	ownDone := make(chan struct{})
	v := catch(func() {
		_ = p.Run(context.Background(), func(w *scheduler.Worker) error {
			owner := w.Index()
			_ = p.Broadcast(context.Background(), func(w *scheduler.Worker) {
				if w.Index() == owner {
					close(ownDone)
					return
				}
				<-ownDone
				assert.NoError(t, p.Spawn(context.Background(), func(*scheduler.Worker) { runtime.Goexit() }))
				releasedEarly <- callerReleasedEarly(p)
			})
			return nil
		})
	})
	requireGoexit(t, v)
	requireGoexit(t, <-handled)
	require.False(t, <-releasedEarly, "Run's caller was released while another Broadcast part still ran")
}

// Run and Broadcast from a task take no slot of their own (Run runs
// inline, Broadcast runs the caller's part). From inside the task's
// Block they cannot run on its worker, which a stand-in runs, but they
// must not wait for a second slot either: with one slot, held by the
// task itself, that would wait forever.
func TestEntryFromBlockNeedsNoSecondSlot(t *testing.T) {
	for _, tc := range []struct {
		name    string
		workers int
		enter   func(p *scheduler.Pool, ran *atomic.Int32)
	}{
		{"run", 1, func(p *scheduler.Pool, ran *atomic.Int32) {
			_ = p.Run(context.Background(), func(*scheduler.Worker) error {
				ran.Add(1)
				return nil
			})
		}},
		{"broadcast", 2, func(p *scheduler.Pool, ran *atomic.Int32) {
			_ = p.Broadcast(context.Background(), func(*scheduler.Worker) { ran.Add(1) })
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := pool(t, scheduler.WithWorkers(tc.workers), scheduler.WithSupplier(slots.NewFixed(1)))
			done := make(chan struct{})
			var ran atomic.Int32
			go func() {
				defer close(done)
				_ = p.Run(context.Background(), func(w *scheduler.Worker) error {
					w.Block(func() {
						for w.IsCurrent() { // until the stand-in runs w (at once, with the fix)
							runtime.Gosched()
						}
						tc.enter(p, &ran)
					})
					return nil
				})
			}()
			hangGuard(t, tc.name+" inside Block's f waits for the slot its own task holds", done)
			require.Equal(t, int32(tc.workers), ran.Load())
			p.Close()
		})
	}
}
