package deque_test

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/anishathalye/porcupine"
	"github.com/stretchr/testify/require"

	"github.com/weftrt/weft/deque"
)

// linKind names a deque operation in a recorded history.
type linKind uint8

const (
	linPush linKind = iota
	linPop
	linSteal
)

// linInput is an operation's input: its kind, and for a push the value.
type linInput struct {
	kind linKind
	val  int
}

// linOutput is an operation's result: the element taken (if any) and, for a
// Steal, its result; a Pop records Success or Empty for true or false.
type linOutput struct {
	val int
	res deque.StealResult
}

// dequeModel is the sequential specification: the state is the deque's
// contents, oldest first, and is never mutated in place.
//
// Steal returning Retry is modelled as a no-op legal in every state, since
// all Retry promises is that the call took nothing. A no-op that is always
// legal constrains nothing, so this is equivalent to leaving those calls out
// of the history; they are kept so that a failure report shows the whole
// interleaving. A Retry that wrongly consumed an element is still caught:
// every history ends with the owner draining the deque, so the element would
// be missing from a later Steal or Pop. Pop's false result and Steal's Empty
// are legal only in the empty state.
var dequeModel = porcupine.Model{
	Init: func() any { return []int(nil) },
	Step: func(state, input, output any) (bool, any) {
		s := state.([]int)
		in, out := input.(linInput), output.(linOutput)
		switch in.kind {
		case linPush:
			return true, append(slices.Clip(s), in.val)
		case linPop:
			if out.res != deque.Success {
				return len(s) == 0, s
			}
			if len(s) == 0 || s[len(s)-1] != out.val {
				return false, s
			}
			return true, s[: len(s)-1 : len(s)-1]
		default:
			switch out.res {
			case deque.Retry:
				return true, s
			case deque.Empty:
				return len(s) == 0, s
			}
			if len(s) == 0 || s[0] != out.val {
				return false, s
			}
			return true, s[1:]
		}
	},
	Equal: func(a, b any) bool { return slices.Equal(a.([]int), b.([]int)) },
	Hash: func(state any) uint64 {
		h := fnv.New64a()
		for _, v := range state.([]int) {
			fmt.Fprint(h, v, ",")
		}
		return h.Sum64()
	},
	DescribeOperation: func(input, output any) string {
		in, out := input.(linInput), output.(linOutput)
		return fmt.Sprintf("%v %d -> %d %v", in.kind, in.val, out.val, out.res)
	},
}

// String names the kind in porcupine's failure output.
func (k linKind) String() string { return [...]string{"push", "pop", "steal"}[k] }

// recorder collects one history. Each client appends to its own log; clock
// gives strictly increasing timestamps, so call/return order across
// goroutines is exact.
type recorder struct {
	clock atomic.Int64
	logs  [][]porcupine.Operation // indexed by client
}

// do runs f as client's operation with the given input and records it.
func (r *recorder) do(client int, in linInput, f func() linOutput) {
	call := r.clock.Add(1)
	out := f()
	ret := r.clock.Add(1)
	r.logs[client] = append(r.logs[client], porcupine.Operation{
		ClientId: client, Input: in, Call: call, Output: out, Return: ret})
}

// history returns every client's operations.
func (r *recorder) history() []porcupine.Operation { return slices.Concat(r.logs...) }

// pause spins for a random short while, to vary how operations interleave.
func pause(r *rand.Rand) {
	for range r.IntN(8) {
		spinSink.Add(1)
	}
}

// spinSink keeps pause's loop from being optimized away.
var spinSink atomic.Int64

// TestLinearizable records many small concurrent histories (an owner pushing
// and popping, thieves stealing, on deques that start tiny so the buffer is
// replaced mid-history) and checks each with porcupine.
func TestLinearizable(t *testing.T) {
	runs := 40_000
	if testing.Short() {
		runs = 5_000
	}
	h := startLinHarness()
	defer h.stop()
	for run := range runs {
		history := h.record(uint64(run))
		require.True(t, porcupine.CheckOperations(dequeModel, history),
			"run %d: history not linearizable:\n%v", run, history)
	}
}

// linThieves is the number of stealing goroutines: with the owner, one more
// than this machine's two cores.
const linThieves = 2

// linHarness keeps its thief goroutines alive and spinning between runs, so
// that when a run starts they are already on a CPU and really overlap with
// the owner (fresh goroutines would mostly run after the owner had finished).
type linHarness struct {
	gen      atomic.Int64 // number of the run the thieves should do; -1 stops them
	finished atomic.Int64 // thief runs completed, over all runs
	d        *deque.Deque[int]
	rec      *recorder
	wg       sync.WaitGroup
}

func startLinHarness() *linHarness {
	h := &linHarness{}
	for thief := 1; thief <= linThieves; thief++ {
		h.wg.Go(func() { h.thief(thief) })
	}
	return h
}

// thief does five steals per run, each after a random pause.
func (h *linHarness) thief(id int) {
	for g := int64(1); ; g++ {
		spinUntil(func() bool { return h.gen.Load() >= g || h.gen.Load() < 0 })
		if h.gen.Load() < 0 {
			return
		}
		// h.d and h.rec were written before gen was stored: the gen load
		// above makes them visible.
		r := rand.New(rand.NewPCG(uint64(g), uint64(id)))
		for range 5 {
			pause(r)
			h.rec.do(id, linInput{kind: linSteal}, func() linOutput {
				x, res := h.d.Steal()
				return linOutput{val: deref(x), res: res}
			})
		}
		h.finished.Add(1)
	}
}

func (h *linHarness) stop() {
	h.gen.Store(-1)
	h.wg.Wait()
}

// record runs one history on a fresh deque that starts with 1, 2 or 4 slots
// and shrinks eagerly, so buffers are replaced while thieves read them.
func (h *linHarness) record(seed uint64) []porcupine.Operation {
	r := rand.New(rand.NewPCG(seed, 3))
	d := deque.New[int](1 << r.IntN(3))
	d.SetShrinkFloor(1)
	rec := &recorder{logs: make([][]porcupine.Operation, linThieves+1)}
	next := 0
	push := func() {
		v := next
		next++
		rec.do(0, linInput{linPush, v}, func() linOutput { d.Push(&v); return linOutput{} })
	}
	for range r.IntN(8) {
		push() // preload, before the thieves start
	}
	h.d, h.rec = d, rec
	g := h.gen.Add(1)
	pop := func() (ok bool) {
		rec.do(0, linInput{kind: linPop}, func() linOutput {
			var x *int
			if x, ok = d.Pop(); !ok {
				return linOutput{res: deque.Empty}
			}
			return linOutput{val: *x, res: deque.Success}
		})
		return ok
	}
	for range 12 {
		pause(r)
		if r.IntN(5) >= 3 {
			pop()
		} else {
			push()
		}
	}
	spinUntil(func() bool { return h.finished.Load() == g*linThieves })
	for pop() {
	}
	return rec.history()
}

// spinUntil busy-waits for cond, yielding now and then so that it cannot
// starve the goroutines it is waiting for.
func spinUntil(cond func() bool) {
	for i := 1; !cond(); i++ {
		if i%128 == 0 {
			runtime.Gosched()
		}
	}
}

// deref returns *x, or -1 for nil.
func deref(x *int) int {
	if x == nil {
		return -1
	}
	return *x
}
