package par_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/weftrt/weft/par"
	"github.com/weftrt/weft/scheduler"
)

// The data of the tiny loops, at package level so that their bodies
// capture nothing and Go allocates none of them: what is left is par's.
var (
	tinyIn  = []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}
	tinyOut = make([]float64, len(tinyIn))
)

func double(i int)               { tinyOut[i] = 2 * tinyIn[i] }
func doubleAt(i int, x *float64) { tinyOut[i] = 2 * *x }
func square(x float64) float64   { return x * x }
func add(a, b float64) float64   { return a + b }
func last(x float64) bool        { return x == 16 }
func doubleErr(i int) error      { double(i); return nil }
func doubleRange(_ *scheduler.Worker, lo, hi int) {
	for i := lo; i < hi; i++ {
		double(i)
	}
}
func doubleWith(_ *scheduler.Worker, in []float64, lo, hi int) {
	for i := lo; i < hi; i++ {
		tinyOut[i] = 2 * in[i]
	}
}

// tinyLoops are the loop forms over a loop short enough to run inline.
var tinyLoops = []struct {
	name   string
	allocs float64 // what the form itself must allocate (Map: its result)
	run    func(w *scheduler.Worker)
}{
	{"For", 0, func(w *scheduler.Worker) { par.For(w, len(tinyIn), double) }},
	{"ForRange", 0, func(w *scheduler.Worker) { par.ForRange(w, 0, len(tinyIn), doubleRange) }},
	{"ForEach", 0, func(w *scheduler.Worker) { par.ForEach(w, tinyIn, doubleAt) }},
	{"ForErr", 0, func(w *scheduler.Worker) { _ = par.ForErr(context.Background(), w, len(tinyIn), doubleErr) }},
	{"Map", 1, func(w *scheduler.Worker) { _ = par.Map(w, tinyIn, square) }},
	{"MapReduce", 0, func(w *scheduler.Worker) { _ = par.MapReduce(w, tinyIn, 0, square, add) }},
	{"Reduce", 0, func(w *scheduler.Worker) { _ = par.Reduce(w, tinyIn, 0, add) }},
	{"Filter", 1, func(w *scheduler.Worker) { _ = par.Filter(w, tinyIn, last) }}, // the kept element
	{"ForRangeWith", 0, func(w *scheduler.Worker) { par.ForRangeWith(w, tinyIn, 0, len(tinyIn), doubleWith) }},
	{"ReduceRangeWith", 0, func(w *scheduler.Worker) { _ = par.ReduceRangeWith(w, tinyIn, 0, len(tinyIn), 0, sumWith, add) }},
}

// A loop short enough to run inline allocates nothing of par's own: the
// forms built on the chunk forms used to make their chunk closure, which
// escapes to the heap, before they found the loop too short to split.
func TestTinyLoopsAllocateNothing(t *testing.T) {
	require.Len(t, tinyIn, par.DefaultInlineLen)
	p, err := scheduler.New(scheduler.WithWorkers(2))
	require.NoError(t, err)
	defer p.Close()
	for _, l := range tinyLoops {
		var got float64
		require.NoError(t, p.Run(context.Background(), func(w *scheduler.Worker) error {
			got = testing.AllocsPerRun(100, func() { l.run(w) })
			return nil
		}))
		require.Equal(t, l.allocs, got, "%s of %d elements", l.name, len(tinyIn))
	}
}

// BenchmarkTiny runs each loop form over 16 elements from inside the pool
// (see TestTinyLoopsAllocateNothing).
func BenchmarkTiny(b *testing.B) {
	p, err := scheduler.New()
	require.NoError(b, err)
	defer p.Close()
	for _, l := range tinyLoops {
		b.Run(l.name, func(b *testing.B) {
			b.ReportAllocs()
			err := p.Run(context.Background(), func(w *scheduler.Worker) error {
				for b.Loop() {
					l.run(w)
				}
				return nil
			})
			if err != nil {
				b.Error(err)
			}
		})
	}
}

// sumOf is a ReduceRangeWithOn chunk: it captures nothing.
func sumOf(xs []float64, lo, hi int) (s float64) {
	for _, x := range xs[lo:hi] {
		s += x
	}
	return s
}

// escaped keeps the last closure runEscaping ran, so that Go allocates
// each on the heap.
var escaped func(lo, hi int)

//go:noinline
func runEscaping(f func(lo, hi int), n int) {
	escaped = f
	f(0, n)
}

// BenchmarkOnTiny runs small loops from outside the pool beside the plain
// loop they replace, with the same body: a loop whose whole work is less
// than entering the pool costs runs on the calling goroutine (ForOn's
// doc), so its cost is the plain loop's plus a few checks.
func BenchmarkOnTiny(b *testing.B) {
	for _, n := range []int{16, 1000} {
		in, out := make([]float64, n), make([]float64, n)
		body := func(i int) { out[i] = 2 * in[i] }
		ctx := context.Background()
		b.Run(fmt.Sprintf("n=%d/plain", n), func(b *testing.B) {
			for b.Loop() {
				for i := range n {
					body(i)
				}
			}
		})
		// The floor for any form that takes a closure from outside: the
		// plain loop through a closure made per call that escapes, as Go
		// makes one passed to a function that may hand it to another
		// goroutine (16 bytes on the heap).
		b.Run(fmt.Sprintf("n=%d/plain-escaping", n), func(b *testing.B) {
			for b.Loop() {
				runEscaping(func(lo, hi int) {
					for i := lo; i < hi; i++ {
						body(i)
					}
				}, n)
			}
		})
		b.Run(fmt.Sprintf("n=%d/ForOn", n), func(b *testing.B) {
			for b.Loop() {
				_ = par.ForOn(ctx, nil, n, body)
			}
		})
		b.Run(fmt.Sprintf("n=%d/ForRangeOn", n), func(b *testing.B) {
			for b.Loop() {
				_ = par.ForRangeOn(ctx, nil, 0, n, func(lo, hi int) {
					for i := lo; i < hi; i++ {
						body(i)
					}
				})
			}
		})
		sum := func(lo, hi int) float64 {
			s := 0.0
			for _, x := range in[lo:hi] {
				s += x
			}
			return s
		}
		add := func(a, b float64) float64 { return a + b }
		b.Run(fmt.Sprintf("n=%d/ReduceRangeOn", n), func(b *testing.B) {
			for b.Loop() {
				_, _ = par.ReduceRangeOn(ctx, nil, 0, n, 0, sum, add)
			}
		})
		b.Run(fmt.Sprintf("n=%d/ReduceRangeWithOn", n), func(b *testing.B) {
			for b.Loop() {
				_, _ = par.ReduceRangeWithOn(ctx, nil, in, 0, n, 0, sumOf, add)
			}
		})
		b.Run(fmt.Sprintf("n=%d/ReduceRangeOn-cancellable", n), func(b *testing.B) {
			ctx := b.Context() // a context that can be cancelled, as a request's is
			for b.Loop() {
				_, _ = par.ReduceRangeOn(ctx, nil, 0, n, 0, sum, add)
			}
		})
	}
}
