package scope_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/weftrt/weft/join"
	"github.com/weftrt/weft/scheduler"
	"github.com/weftrt/weft/scope"
)

// A fault tree is a random tree of scopes (Run and Group, entered
// directly or through Block and On), joins and leaves, where leaves and
// scope bodies panic, return errors or call runtime.Goexit at random
// points. Each scope records what its body and direct tasks did, and
// checks on its way out (returning, panicking or unwinding) what the
// package promises: no task of it still runs, the panic it raises is one
// of its tasks', none is lost, a Group returns one of its tasks' errors
// and its context carries that error (or the panic) as the cause, and
// its handle is refused once it has returned. Every node runs at most
// once, and every node that started finished before its waiter went on.

type faultKind int

const (
	faultNone faultKind = iota
	faultPanic
	faultError
	faultGoexit
)

type ftKind int

const (
	ftLeaf ftKind = iota
	ftRun
	ftGroup
	ftJoin
)

type ftNode struct {
	id       int
	kind     ftKind
	fault    faultKind
	faultAt  int  // scopes: the body faults before handling child faultAt
	outside  bool // scopes: entered through Block and On/GroupOn
	block    bool // leaves: Block around nothing; scopes: see blockOn
	blockOn  int  // scopes: the body Blocks until this child (spawned by the body) finishes; -1: none
	via      int  // child of a scope: -1 spawned (or run inline) by the body, else by that sibling's task
	inline   bool // child of a scope with via -1: run by the body itself
	children []*ftNode
}

type ftGen struct {
	r  *rand.Rand
	id int
}

func (g *ftGen) node(depth int) *ftNode {
	g.id++
	n := &ftNode{id: g.id, blockOn: -1, via: -1}
	k := g.r.IntN(10)
	switch {
	case depth <= 0 || k < 2:
		n.kind = ftLeaf
	case k < 6:
		n.kind = ftRun
	case k < 9:
		n.kind = ftGroup
	default:
		n.kind = ftJoin
	}
	switch f := g.r.IntN(40); {
	case f < 3:
		n.fault = faultPanic
	case f < 6:
		n.fault = faultError
	case f < 7:
		n.fault = faultGoexit
	}
	switch n.kind {
	case ftLeaf:
		n.block = g.r.IntN(8) == 0
	case ftJoin:
		n.children = []*ftNode{g.node(depth - 1), g.node(depth - 1)}
	default:
		n.outside = g.r.IntN(6) == 0
		for k := range g.r.IntN(6) {
			c := g.node(depth - 1 - g.r.IntN(2))
			if k > 0 && g.r.IntN(3) == 0 {
				c.via = g.r.IntN(k)
			} else if g.r.IntN(4) == 0 {
				c.inline = true
			}
			n.children = append(n.children, c)
		}
		n.faultAt = g.r.IntN(len(n.children) + 1)
		var spawned []int
		for k, c := range n.children {
			if c.via == -1 && !c.inline && k < n.faultAt {
				spawned = append(spawned, k)
			}
		}
		if len(spawned) > 0 && g.r.IntN(4) == 0 {
			n.blockOn = spawned[g.r.IntN(len(spawned))]
		}
	}
	return n
}

// ftHarness is one run of a tree: what ran, and what went wrong.
type ftHarness struct {
	p        *scheduler.Pool
	runs     sync.Map // id -> *atomic.Int32
	finished sync.Map // id -> *atomic.Bool
	errs     sync.Map // id -> error
	mu       sync.Mutex
	problems []string
}

func (h *ftHarness) problem(format string, args ...any) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.problems = append(h.problems, fmt.Sprintf(format, args...))
}

func (h *ftHarness) counter(id int) *atomic.Int32 {
	v, _ := h.runs.LoadOrStore(id, new(atomic.Int32))
	return v.(*atomic.Int32)
}

func (h *ftHarness) fin(id int) *atomic.Bool {
	v, _ := h.finished.LoadOrStore(id, new(atomic.Bool))
	return v.(*atomic.Bool)
}

func (h *ftHarness) errOf(id int) error {
	v, _ := h.errs.LoadOrStore(id, fmt.Errorf("error of node %d", id))
	return v.(error)
}

// mustRefuse checks that a spawn with s panics with a message containing
// why, and that nothing ran.
func (h *ftHarness) mustRefuse(n *ftNode, s *scope.Scope, why string) {
	v := catch(func() {
		s.Spawn(func(*scope.Scope) { h.problem("scope %d: a refused spawn ran", n.id) })
	})
	if msg, _ := v.(string); !strings.Contains(msg, why) {
		h.problem("scope %d: spawn with a handle used wrongly (%s) gave %v", n.id, why, v)
	}
}

func panicValue(id int) string { return fmt.Sprintf("panic of node %d", id) }

func (h *ftHarness) fault(n *ftNode) error {
	switch n.fault {
	case faultPanic:
		panic(panicValue(n.id))
	case faultError:
		return h.errOf(n.id)
	case faultGoexit:
		runtime.Goexit()
	}
	return nil
}

// run runs n on w; it returns n's error, panics with its panic.
func (h *ftHarness) run(n *ftNode, w *scheduler.Worker, ctx context.Context) error {
	if c := h.counter(n.id).Add(1); c > 1 {
		h.problem("node %d ran %d times", n.id, c)
	}
	defer h.fin(n.id).Store(true)
	switch n.kind {
	case ftLeaf:
		if n.block {
			w.Block(func() {})
		}
		return h.fault(n)
	case ftJoin:
		var ea, eb error
		join.Join(w,
			func(w *scheduler.Worker) { ea = h.run(n.children[0], w, ctx) },
			func(w *scheduler.Worker) { eb = h.run(n.children[1], w, ctx) })
		for _, c := range n.children {
			if h.counter(c.id).Load() != 1 || !h.fin(c.id).Load() {
				h.problem("join %d returned before child %d ran and finished", n.id, c.id)
			}
		}
		return errors.Join(ea, eb)
	default:
		return h.scope(n, w, ctx)
	}
}

// outcome is what a scope's body or one of its tasks did.
type outcome struct {
	who    int // child index, or -1 for the body
	err    error
	panic  any // recovered value, unwrapped from *scheduler.Panic
	goexit bool
}

type scopeRec struct {
	mu       sync.Mutex
	outcomes []outcome
	spawned  []int
	bodyRan  bool
	ctx      context.Context
	handle   *scope.Scope
}

func (r *scopeRec) add(o outcome) {
	r.mu.Lock()
	r.outcomes = append(r.outcomes, o)
	r.mu.Unlock()
}

// record runs f and records how it ended; a panic goes on.
func (r *scopeRec) record(who int, f func() error) (err error) {
	normal := false
	defer func() {
		if normal {
			r.add(outcome{who: who, err: err})
			return
		}
		v := recover()
		if v == nil {
			r.add(outcome{who: who, goexit: true})
			return
		}
		val := v
		if p, ok := v.(*scheduler.Panic); ok {
			val = p.Value
		}
		r.add(outcome{who: who, panic: val})
		panic(v)
	}()
	err = f()
	normal = true
	return err
}

func (h *ftHarness) scope(n *ftNode, w *scheduler.Worker, ctx context.Context) (err error) {
	rec := &scopeRec{}
	group := n.kind == ftGroup
	done := make([]chan struct{}, len(n.children))
	for k := range done {
		done[k] = make(chan struct{})
	}
	var spawn func(s *scope.Scope, k int)
	spawn = func(s *scope.Scope, k int) {
		task := func(ts *scope.Scope) error {
			defer close(done[k])
			return rec.record(k, func() error {
				for j, c := range n.children {
					if c.via == k {
						spawn(ts, j)
					}
				}
				return h.run(n.children[k], ts.Worker(), ts.Context())
			})
		}
		if group {
			s.Go(task)
		} else {
			s.Spawn(func(ts *scope.Scope) { _ = task(ts) })
		}
		rec.mu.Lock()
		rec.spawned = append(rec.spawned, k)
		rec.mu.Unlock()
	}
	body := func(s *scope.Scope) error {
		rec.mu.Lock()
		rec.bodyRan, rec.ctx, rec.handle = true, s.Context(), s
		rec.mu.Unlock()
		if n.id%4 == 0 {
			refused := make(chan struct{})
			go func() {
				defer close(refused)
				h.mustRefuse(n, s, "another goroutine")
			}()
			<-refused
		}
		return rec.record(-1, func() error {
			for k, c := range n.children {
				if k == n.faultAt {
					if err := h.fault(n); err != nil {
						return err
					}
				}
				if c.via != -1 {
					continue
				}
				if c.inline {
					if err := h.run(c, s.Worker(), s.Context()); err != nil && group {
						return err
					}
					continue
				}
				spawn(s, k)
				if k == n.blockOn {
					s.Worker().Block(func() {
						// f's goroutine no longer runs the worker: the handle is refused.
						h.mustRefuse(n, s, "another goroutine")
						<-done[k]
					})
				}
			}
			if n.faultAt == len(n.children) {
				return h.fault(n)
			}
			return nil
		})
	}

	normal := false
	defer func() {
		rec.mu.Lock()
		defer rec.mu.Unlock()
		for _, k := range rec.spawned {
			if !h.fin(n.children[k].id).Load() {
				h.problem("scope %d ended before its task %d (node %d) finished", n.id, k, n.children[k].id)
			}
		}
		var panics []any
		var errs []error
		goexits := 0
		for _, o := range rec.outcomes {
			switch {
			case o.goexit:
				goexits++
				panics = append(panics, scheduler.ErrGoexit)
			case o.panic != nil:
				panics = append(panics, o.panic)
			case o.err != nil:
				errs = append(errs, o.err)
			}
		}
		if normal {
			if len(panics) > 0 {
				h.problem("scope %d returned normally though %v panicked in it", n.id, panics)
			}
			if group && rec.bodyRan {
				if (err == nil) != (len(errs) == 0) || err != nil && !slices.Contains(errs, err) {
					h.problem("group %d returned %v; its tasks returned %v", n.id, err, errs)
				}
				if cause := context.Cause(rec.ctx); err != nil && cause != err && context.Cause(ctx) == nil {
					h.problem("group %d returned %v but its context's cause is %v", n.id, err, cause)
				}
				if rec.ctx.Err() == nil {
					h.problem("group %d's context not cancelled after it returned", n.id)
				}
			}
			if rec.handle != nil {
				h.mustRefuse(n, rec.handle, "has finished")
			}
			return
		}
		v := recover()
		if v == nil {
			return // Goexit: on its way out, nothing to re-raise
		}
		defer panic(v)
		p, ok := v.(*scheduler.Panic)
		if !ok {
			h.problem("scope %d raised %T %v, not a *scheduler.Panic", n.id, v, v)
			return
		}
		// Through On, a Goexit of a job that the scope's worker ran while
		// it waited comes back as a panic, though no task of it failed.
		if !slices.Contains(panics, p.Value) && !(n.outside && p.Value == scheduler.ErrGoexit) {
			h.problem("scope %d raised %v; panics in it: %v", n.id, p.Value, panics)
		}
		// A Goexit makes a new *Panic at every wait it unwinds through:
		// only a panic keeps its identity from the task to the caller.
		if group && len(errs) == 0 && context.Cause(ctx) == nil && p.Value != scheduler.ErrGoexit {
			if cause := context.Cause(rec.ctx); cause != error(p) {
				h.problem("group %d raised %v but its context's cause is %v", n.id, p.Value, cause)
			}
		}
	}()

	switch {
	case n.outside:
		var inner error
		w.Block(func() {
			if group {
				inner = scope.GroupOn(ctx, h.p, body)
				return
			}
			inner = scope.On(context.Background(), h.p, func(s *scope.Scope) { _ = body(s) })
		})
		err = inner
	case group:
		err = scope.Group(ctx, w, body)
	default:
		scope.Run(w, func(s *scope.Scope) { _ = body(s) })
	}
	normal = true
	return err
}

func TestRandomFaultTrees(t *testing.T) {
	trees := 300
	if testing.Short() {
		trees = 60
	}
	for seed := range trees {
		r := rand.New(rand.NewPCG(uint64(seed), 7))
		g := &ftGen{r: r}
		tree := g.node(5)
		workers := 1 + seed%4
		p, err := scheduler.New(scheduler.WithWorkers(workers))
		require.NoError(t, err)
		h := &ftHarness{p: p}
		_ = catch(func() {
			_ = p.Run(context.Background(), func(w *scheduler.Worker) error {
				_ = h.run(tree, w, context.Background())

				return nil
			})
		})
		p.Close()
		h.runs.Range(func(k, v any) bool {
			if v.(*atomic.Int32).Load() > 0 && !h.fin(k.(int)).Load() {
				h.problem("node %d started and never finished", k)
			}
			return true
		})
		for _, pr := range h.problems {
			t.Errorf("seed %d, %d workers: %s", seed, workers, pr)
		}
	}
}
