package join_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/weftrt/weft/join"
	"github.com/weftrt/weft/scheduler"
)

// forms runs a and b through each fork-join form.
var forms = map[string]func(w *scheduler.Worker, a, b func(*scheduler.Worker)){
	"Join": join.Join,
	"Call": func(w *scheduler.Worker, a, b func(*scheduler.Worker)) {
		join.Call(w, func(w *scheduler.Worker, second bool) int {
			if second {
				b(w)
			} else {
				a(w)
			}
			return 0
		}, false, true)
	},
	"Both": func(w *scheduler.Worker, a, b func(*scheduler.Worker)) {
		join.Both(w,
			func(w *scheduler.Worker) int { a(w); return 0 },
			func(w *scheduler.Worker) int { b(w); return 0 })
	},
}

// hangGuard fails t if done is not closed within a time no correct run
// comes near: it turns a hang into a failure, and times nothing.
func hangGuard(t *testing.T, what string, done <-chan struct{}) {
	t.Helper()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatalf("hang: %s", what)
	}
}

// forkUntil forks cheap joins on w (each a heartbeat opportunity, with a
// 1ns heartbeat) until stolen is closed, so that a pending b of an
// enclosing join gets published and taken by the idle worker. It reports
// false if that takes implausibly many forks.
func forkUntil(w *scheduler.Worker, stolen <-chan struct{}) bool {
	for range 50_000_000 {
		select {
		case <-stolen:
			return true
		default:
		}
		join.Call(w, noop, 1, 2)
	}
	return false
}

// released tells, without timing, whether the Run caller of the task
// whose join waits for this half was released while this half still runs:
// once the goroutine that called Goexit has been replaced, the caller was
// released first (the replacement happens only after the goroutine's last
// deferred call); if instead a worker went to sleep after sleeps0 (the
// joining worker, waiting for us) with none replaced, it waits as it must.
func released(p *scheduler.Pool, sleeps0 uint64) bool {
	for {
		// Sleeps first: a replacement goroutine may sleep too, but only
		// after Replaced counts it.
		slept := p.Stats().Sleeps > sleeps0
		if p.Stats().Replaced >= 1 {
			return true
		}
		if slept {
			return false
		}
		runtime.Gosched()
	}
}

// A join whose a panics waits in its deferred guard for the b a thief
// took, running other jobs meanwhile. When one of those jobs calls
// runtime.Goexit, the guard's wait is cut short by the Goexit's
// unwinding: the guard must go on waiting for b, as a join waiting on
// its normal path does (and scopes and Broadcast do, with WaitOut), or
// the task's caller is released while b still runs on the thief, and
// the thief then writes into a frame nobody waits for. Only the joining
// worker can take the Goexit job: the other one runs b.
func TestGoexitWhileGuardWaits(t *testing.T) {
	for name, form := range forms {
		t.Run(name, func(t *testing.T) {
			handled := make(chan *scheduler.Panic, 1)
			p, err := scheduler.New(scheduler.WithWorkers(2), scheduler.WithHeartbeat(time.Nanosecond),
				scheduler.WithPanicHandler(func(pp *scheduler.Panic) { handled <- pp }))
			require.NoError(t, err)
			defer p.Close()
			stolen, spawned := make(chan struct{}), make(chan struct{})
			releasedEarly := make(chan bool, 1)
			var owner atomic.Int64
			var bDone atomic.Bool
			var v any
			runDone := make(chan struct{})
			go func() {
				defer close(runDone)
				v = catch(func() {
					_ = p.Run(context.Background(), func(w *scheduler.Worker) error {
						owner.Store(int64(w.Index()))
						form(w, func(w *scheduler.Worker) {
							if !forkUntil(w, stolen) {
								t.Error("b was never stolen")
								return
							}
							<-spawned
							panic("a")
						}, func(w *scheduler.Worker) {
							defer bDone.Store(true)
							if int64(w.Index()) == owner.Load() {
								releasedEarly <- false // run inline: the test failed above
								return
							}
							close(stolen)
							sleeps0 := p.Stats().Sleeps
							assert.NoError(t, p.Spawn(context.Background(), func(*scheduler.Worker) { runtime.Goexit() }))
							close(spawned)
							releasedEarly <- released(p, sleeps0)
						})
						return nil
					})
				})
				if !bDone.Load() {
					t.Error("Run returned before b had finished")
				}
			}()
			hangGuard(t, "the join's caller", runDone)
			require.IsType(t, &scheduler.Panic{}, v)
			require.False(t, <-releasedEarly, "Run's caller was released while b still ran on the thief")
			hangGuard(t, "the Goexit job's panic handler", chanOf(handled))
			// The pool keeps working.
			require.NoError(t, p.Run(context.Background(), func(w *scheduler.Worker) error {
				assert.Equal(t, 55, fibCall(w, 10))
				return nil
			}))
		})
	}
}

// chanOf is closed once c delivers a value.
func chanOf[T any](c <-chan T) <-chan struct{} {
	done := make(chan struct{})
	go func() { <-c; close(done) }()
	return done
}

// detachedChildEnv makes this test binary, re-executed by
// TestDetachedPanicStaysOutOfJoins, run the child's side of that test.
const detachedChildEnv = "WEFT_JOIN_DETACHED_CHILD"

// A Spawned task's panic with no panic handler crashes the program, as an
// unrecovered panic in a goroutine would (docs/faults.md). A worker that
// waits for the thief of its join's b runs other jobs meanwhile, such a
// task among them: its panic must not unwind into the waiting join, which
// would take it for a panic of one of its halves and raise it to its own
// caller (a task that did not panic), where user code can even recover
// it. The child process runs that scenario: it exits with
// childGotPanic if the join's caller got the detached task's panic, and
// must instead crash with it.
func TestDetachedPanicStaysOutOfJoins(t *testing.T) {
	if mode := os.Getenv(detachedChildEnv); mode != "" {
		detachedChild(mode)
		return
	}
	for _, c := range []struct{ mode, crash string }{
		{"no-handler", "detached task's panic"},
		// A panic handler that panics itself: that panic is nobody's
		// either, and must not reach the waiting join instead.
		{"panicking-handler", "the handler's own panic"},
	} {
		t.Run(c.mode, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestDetachedPanicStaysOutOfJoins$")
			cmd.Env = append(os.Environ(), detachedChildEnv+"="+c.mode)
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			require.NoError(t, cmd.Start())
			exited := make(chan struct{})
			go func() { _ = cmd.Wait(); close(exited) }()
			select {
			case <-exited:
			case <-time.After(20 * time.Second):
				_ = cmd.Process.Kill()
				<-exited
				t.Fatalf("hang: the child neither crashed nor returned\n%s", out.String())
			}
			code := cmd.ProcessState.ExitCode()
			require.NotEqual(t, childGotPanic, code, "the join's caller got the detached task's panic:\n%s", out.String())
			require.NotEqual(t, 0, code, "the detached task's panic vanished:\n%s", out.String())
			require.Contains(t, out.String(), c.crash, "the child died of something else")
		})
	}
}

// childGotPanic is the child's exit code when the join's caller got the
// detached task's panic.
const childGotPanic = 3

func detachedChild(mode string) {
	opts := []scheduler.Option{scheduler.WithWorkers(2), scheduler.WithHeartbeat(time.Nanosecond)}
	if mode == "panicking-handler" {
		opts = append(opts, scheduler.WithPanicHandler(func(*scheduler.Panic) { panic("the handler's own panic") }))
	}
	p, err := scheduler.New(opts...)
	if err != nil {
		panic(err)
	}
	stolen, spawned := make(chan struct{}), make(chan struct{})
	var owner atomic.Int64
	v := catch(func() {
		_ = p.Run(context.Background(), func(w *scheduler.Worker) error {
			owner.Store(int64(w.Index()))
			join.Join(w, func(w *scheduler.Worker) {
				if !forkUntil(w, stolen) {
					panic("b was never stolen")
				}
				<-spawned
			}, func(w *scheduler.Worker) {
				if int64(w.Index()) == owner.Load() {
					return
				}
				close(stolen)
				if err := p.Spawn(context.Background(), func(*scheduler.Worker) { panic("detached task's panic") }); err != nil {
					panic(err)
				}
				close(spawned)
				// Only the joining worker can run the spawned task: keep
				// this one busy until it has.
				for p.Stats().Pending > 1 {
					runtime.Gosched()
				}
			})
			return nil
		})
	})
	if v != nil {
		fmt.Fprintf(os.Stderr, "the join's caller got: %v\n", v)
		os.Exit(childGotPanic)
	}
	// Correct so far: the crash is on its way.
	<-time.After(20 * time.Second)
	fmt.Fprintln(os.Stderr, "no crash")
	os.Exit(4)
}
