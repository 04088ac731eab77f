package intake_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/weftrt/weft/intake"
	"github.com/weftrt/weft/scheduler"
	"github.com/weftrt/weft/slots"
)

// goexitSite is one place where user code other than a handler calls
// runtime.Goexit, as t.FailNow and require.* do in a test's source,
// supplier or backoff.
type goexitSite struct {
	name string // what the worker's error names
	// setup arms the Goexit in g's tasks or in cfg; cfg has g's tasks as
	// its source, two slots and a handler that returns nil.
	setup func(g *goexitCase, cfg *intake.Config)
	// cut says the Goexit struck a settlement (or the poll that would
	// have brought the tasks): that task is left to its lease, unsettled,
	// or, for Poll, the tasks stay in the source.
	cut int64
}

var goexitSites = []goexitSite{
	{"the source's Poll", func(g *goexitCase, cfg *intake.Config) {
		cfg.Source = &pollTrap{Source: cfg.Source, trap: g.trap}
	}, 2},
	{"its Deliveries", func(g *goexitCase, _ *intake.Config) { g.arm(0, "Deliveries") }, 0},
	{"its Key", func(g *goexitCase, _ *intake.Config) { g.arm(0, "Key") }, 0},
	{"its Taken", func(g *goexitCase, _ *intake.Config) { g.arm(0, "Taken") }, 0},
	{"the source's Ack", func(g *goexitCase, _ *intake.Config) { g.arm(0, "Ack") }, 1},
	{"the source's AckAsync", func(g *goexitCase, cfg *intake.Config) {
		g.arm(0, "AckAsync")
		cfg.Source = newScriptSource(g.list(true)...)
	}, 1},
	{"the source's Nack", func(g *goexitCase, cfg *intake.Config) {
		g.arm(0, "Nack")
		cfg.Handler = func(context.Context, intake.Task) error { return errHandler }
	}, 1},
	{"the source's Terminate", func(g *goexitCase, cfg *intake.Config) {
		g.arm(0, "Terminate")
		cfg.Handler = func(context.Context, intake.Task) error { return intake.Poison(errHandler) }
	}, 1},
	{"the source's HandBack", func(g *goexitCase, cfg *intake.Config) {
		// One slot, two tasks in one answer: the second is beyond the
		// ask, and goes back.
		g.arm(1, "HandBack")
		cfg.Source = &seqSource{answers: []answer{{tasks: g.list(false)}}}
		cfg.Supplier = slots.NewFixed(1)
	}, 1},
	{"the source's InProgress", func(g *goexitCase, cfg *intake.Config) {
		g.arm(0, "InProgress")
		cfg.Heartbeat = 4 * time.Millisecond
		cfg.Handler = func(context.Context, intake.Task) error { <-g.trap.fired; return nil }
	}, 0},
	{"Config.Backoff", func(g *goexitCase, cfg *intake.Config) {
		cfg.Backoff = func(int) time.Duration { g.trap.spring(); return 0 }
		cfg.Handler = func(context.Context, intake.Task) error { return errHandler }
	}, 1},
	{"Config.PollBackoff", func(g *goexitCase, cfg *intake.Config) {
		cfg.Source = &seqSource{answers: []answer{{err: errPoll}, {tasks: g.list(false)}}}
		cfg.PollBackoff = func(int) time.Duration { g.trap.spring(); return 0 }
	}, 2},
	{"Config.EmptyPollBackoff", func(g *goexitCase, cfg *intake.Config) {
		cfg.Source = &seqSource{answers: []answer{{}, {tasks: g.list(false)}}}
		cfg.EmptyPollBackoff = func(int) time.Duration { g.trap.spring(); return 0 }
	}, 2},
	{"the supplier, reserving a poll's first slot,", func(g *goexitCase, cfg *intake.Config) {
		cfg.Supplier = &reserveTrap{Supplier: slots.NewFixed(2), trap: g.trap}
	}, 2},
	{"the supplier, reserving more slots for a poll,", func(g *goexitCase, cfg *intake.Config) {
		// The Pauseable's try for the first slot, the second slot, then
		// the third try, for a slot there is not, springs the trap.
		cfg.Supplier = &reserveTrap{Supplier: slots.NewFixed(3), trap: g.trap, trapTry: 3}
	}, 2},
	{"the supplier's MarkSlotUsed", func(g *goexitCase, cfg *intake.Config) {
		s := &goexitSupplier{Supplier: slots.NewFixed(2), fired: g.trap.fired}
		s.markArmed.Store(true)
		cfg.Supplier = s
	}, 0},
	{"the supplier's ReleaseSlot", func(g *goexitCase, cfg *intake.Config) {
		s := &goexitSupplier{Supplier: slots.NewFixed(2), fired: g.trap.fired}
		s.releaseArmed.Store(true)
		cfg.Supplier = s
	}, 0},
}

// arm puts g's trap in task i's method at.
func (g *goexitCase) arm(i int, at string) { g.tasks[i].at, g.tasks[i].trap = at, g.trap }

// A runtime.Goexit in user code other than a handler (t.FailNow in a
// test's source, supplier or backoff) fails the worker, wherever it
// strikes: OnError is told, naming the code, Stats().Err and Shutdown
// return an error that wraps ErrFailed and scheduler.ErrGoexit, and the
// worker stops with nothing held: no slot, no settlement in flight, every
// task settled once, handed back, or (the one whose settlement the Goexit
// struck) left to its lease. Before this policy, each site had the
// worker go on from another goroutine, which took code and care at every
// one of them; a bug there hung Shutdown or lost a slot.
func TestGoexitOutsideHandlerFailsTheWorker(t *testing.T) {
	for _, site := range goexitSites {
		t.Run(strings.TrimSuffix(site.name, ","), func(t *testing.T) {
			g := caseMaker(false)(2, 0, "")
			fired := g.trap.fired
			cfg := intake.Config{
				Source: newScriptSource(g.list(false)...), Supplier: slots.NewFixed(2), MaxPollers: 1,
				Backoff: func(int) time.Duration { return 0 }, Handler: nop,
			}
			site.setup(g, &cfg)
			var mu sync.Mutex
			var named []error
			cfg.OnError = func(err error) {
				t.Logf("worker: %v", err)
				if errors.Is(err, intake.ErrFailed) {
					mu.Lock()
					named = append(named, err)
					mu.Unlock()
				}
			}
			w, err := intake.New(cfg)
			require.NoError(t, err)
			defer w.Close()
			select {
			case <-fired:
			case <-time.After(10 * time.Second): // a hang guard only
				t.Fatal("the Goexit never came: the test does not test what it says")
			}
			eventually(t, 10*time.Second, func() bool { return w.Stats().Err != nil }, "the worker failed")

			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			err = w.Shutdown(ctx)
			require.ErrorIs(t, err, intake.ErrFailed, "Shutdown of a failed worker")
			require.ErrorIs(t, err, scheduler.ErrGoexit)
			require.Contains(t, err.Error(), site.name+" called runtime.Goexit")
			require.Equal(t, err, w.Stats().Err)
			mu.Lock()
			require.NotEmpty(t, named, "OnError was not told")
			require.Contains(t, named[0].Error(), site.name)
			mu.Unlock()

			st := w.Stats()
			require.True(t, slotsIdle(w), "slots still held: %+v", st.Slots)
			require.Zero(t, st.Settling, "settlements still in flight: %+v", st)
			c := g.c.get()
			settled := c.Acked + c.Nacked + c.Terminated + c.HandedBack
			require.Equal(t, int64(len(g.tasks))-site.cut, settled, "tasks settled or handed back: %+v (stats %+v)", c, st)
			require.Zero(t, st.Pollers, "a poller outlived Shutdown")
		})
	}
}

// pollTrap springs its trap in Poll, before asking its source.
type pollTrap struct {
	intake.Source
	trap *trap
}

func (p *pollTrap) Poll(ctx context.Context, n int) ([]intake.Task, error) {
	p.trap.spring()
	return p.Source.Poll(ctx, n)
}
