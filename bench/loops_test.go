package bench_test

import (
	"math"
	"testing"

	"github.com/weftrt/weft/internal/work"
	"github.com/weftrt/weft/scheduler"
	"github.com/weftrt/weft/sleep"
)

// loopCase is one workload of BenchmarkLoops: a kernel over [0, n).
type loopCase struct {
	name string
	n    int
	k    work.LoopKernel
	// perElem adds ns/elem, the wall time per element of the range.
	perElem bool
	// tiny adds the weft-values contender.
	tiny bool
	// spin adds weft-nospin and weft-on-nospin: weft and weft-on on a
	// pool whose idle workers never spin beside a busy one (sleep.Tunables
	// BusySpin -1; by default they spin 25 µs beside a worker that runs
	// a splitting loop).
	spin bool
}

// BenchmarkLoops runs the loop workloads (see bench/loops.go) with every
// contender: sequential, goroutines (GOMAXPROCS static chunks), errgroup
// (SetLimit(GOMAXPROCS), 4 chunks per P) and weft (par.ReduceRange on a
// worker, the loop started from inside a task; weft-on starts it from
// outside with par.ReduceRangeOn, which runs a loop too small to share on
// the calling goroutine and enters the pool with the rest). The
// tiny loops also run weft-values and weft-on-values (par.ReduceRangeWith
// and par.ReduceRangeWithOn, the kernel passed as the loop's data):
// weft's closure captures the kernel, as a user's body captures its data,
// and Go allocates such a closure on the heap because a thief may run it.
// conc's iter is in the bench/contenders module (BenchmarkLoops there).
func BenchmarkLoops(b *testing.B) {
	cases := []loopCase{
		{"uniform-10M", 10_000_000, work.Uniform, true, false, false},
		// A loop of about 200 µs on one core, the size a program runs
		// back to back (a step of a simulation, a layer of a network):
		// here a worker that sleeps between pieces costs the loop a
		// wake-up it cannot amortise (docs/sleep.md, the busy spin).
		{"uniform-400k", 400_000, work.Uniform, true, false, true},
		{"irregular-6k", 6000, work.Triangular, false, false, false},
		{"tiny-16", 16, work.Uniform, true, true, false},
		{"tiny-1000", 1000, work.Uniform, true, true, false},
		{"mandelbrot-1024", work.MandelbrotSize, work.Mandelbrot, false, false, false},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) { loopContenders(b, c) })
	}
	b.Run("matmul-512", benchMatMul)
	b.Run("matmul-256-nested", benchMatMulNested)
}

func loopContenders(b *testing.B, c loopCase) {
	want := work.LoopSeq(c.n, c.k)
	run := func(b *testing.B, body func() float64) {
		var got float64
		measure(b, func() { got = body() })
		checkClose(b, got, want)
		if c.perElem {
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(c.n), "ns/elem")
		}
	}
	b.Run("sequential", func(b *testing.B) { run(b, func() float64 { return work.LoopSeq(c.n, c.k) }) })
	b.Run("goroutines", func(b *testing.B) { run(b, func() float64 { return work.LoopGoroutines(c.n, c.k) }) })
	b.Run("errgroup", func(b *testing.B) { run(b, func() float64 { return work.LoopErrgroup(c.n, c.k) }) })
	b.Run("dynamic", func(b *testing.B) { run(b, func() float64 { return work.LoopDynamic(c.n, c.k) }) })
	b.Run("weft", func(b *testing.B) {
		p := newPool(b)
		onPool(b, p, func(w *scheduler.Worker) {
			run(b, func() float64 { return work.LoopPar(w, c.n, c.k) })
		})
	})
	if c.tiny {
		b.Run("weft-values", func(b *testing.B) {
			p := newPool(b)
			onPool(b, p, func(w *scheduler.Worker) {
				run(b, func() float64 { return work.LoopParWith(w, c.n, c.k) })
			})
		})
	}
	weftOn := func(b *testing.B, p *scheduler.Pool) {
		run(b, func() float64 {
			s, err := work.LoopParOn(b.Context(), p, c.n, c.k)
			if err != nil {
				b.Fatal(err)
			}
			return s
		})
	}
	b.Run("weft-on", func(b *testing.B) { weftOn(b, newPool(b)) })
	if c.tiny {
		b.Run("weft-on-values", func(b *testing.B) {
			p := newPool(b)
			run(b, func() float64 {
				s, err := work.LoopParWithOn(b.Context(), p, c.n, c.k)
				if err != nil {
					b.Fatal(err)
				}
				return s
			})
		})
	}
	if c.spin {
		sleepy := func(b *testing.B) *scheduler.Pool {
			return newPool(b, scheduler.WithSleep(sleep.Tunables{BusySpin: -1}))
		}
		b.Run("weft-nospin", func(b *testing.B) {
			onPool(b, sleepy(b), func(w *scheduler.Worker) {
				run(b, func() float64 { return work.LoopPar(w, c.n, c.k) })
			})
		})
		b.Run("weft-on-nospin", func(b *testing.B) { weftOn(b, sleepy(b)) })
	}
}

// benchMatMul multiplies two 512×512 matrices: rows by static chunks for
// goroutines and errgroup, rows and then columns (a nested loop) for weft.
func benchMatMul(b *testing.B) {
	a, m, c, run := matMulCase(512, work.MulRows)
	n := a.N
	rows := func(lo, hi int) float64 { return work.MulRows(a, m, c, lo, hi) }
	b.Run("sequential", func(b *testing.B) { run(b, func() float64 { return work.LoopSeq(n, rows) }) })
	b.Run("goroutines", func(b *testing.B) { run(b, func() float64 { return work.LoopGoroutines(n, rows) }) })
	b.Run("errgroup", func(b *testing.B) { run(b, func() float64 { return work.LoopErrgroup(n, rows) }) })
	b.Run("weft", func(b *testing.B) {
		p := newPool(b)
		onPool(b, p, func(w *scheduler.Worker) { run(b, func() float64 { return work.MatMulPar(w, a, m, c) }) })
	})
}

// benchMatMulNested multiplies 256×256 matrices with a loop over rows
// whose body loops over column blocks of 32: nested par loops for weft
// (from inside a task, and from outside with Pool.Run), the row loop cut
// by the others, each row's blocks in turn. weft-values runs the inner
// loop in the value form (par.ReduceRangeWith): weft's inner closure is
// a heap allocation per row, which the others, with no inner loop, do not
// make.
func benchMatMulNested(b *testing.B) {
	a, m, c, run := matMulCase(256, work.MulRowsBlocked)
	rows := func(lo, hi int) float64 { return work.MulRowsBlocked(a, m, c, lo, hi) }
	n := a.N
	b.Run("sequential", func(b *testing.B) { run(b, func() float64 { return work.LoopSeq(n, rows) }) })
	b.Run("goroutines", func(b *testing.B) { run(b, func() float64 { return work.LoopGoroutines(n, rows) }) })
	b.Run("errgroup", func(b *testing.B) { run(b, func() float64 { return work.LoopErrgroup(n, rows) }) })
	b.Run("dynamic", func(b *testing.B) { run(b, func() float64 { return work.LoopDynamic(n, rows) }) })
	b.Run("weft", func(b *testing.B) {
		p := newPool(b)
		onPool(b, p, func(w *scheduler.Worker) { run(b, func() float64 { return work.MatMulNestedPar(w, a, m, c) }) })
	})
	b.Run("weft-values", func(b *testing.B) {
		p := newPool(b)
		onPool(b, p, func(w *scheduler.Worker) { run(b, func() float64 { return work.MatMulNestedParWith(w, a, m, c) }) })
	})
	b.Run("weft-on", func(b *testing.B) {
		p := newPool(b)
		run(b, func() float64 {
			s, err := scheduler.RunValue(b.Context(), p, func(w *scheduler.Worker) (float64, error) {
				return work.MatMulNestedPar(w, a, m, c), nil
			})
			if err != nil {
				b.Fatal(err)
			}
			return s
		})
	})
}

// matMulCase makes the matrices of an n×n multiply, c = a × m, and a
// runner that times a contender and checks its sum against seq's.
func matMulCase(n int, seq func(a, b, c work.Matrix, lo, hi int) float64) (a, m, c work.Matrix, run func(b *testing.B, body func() float64)) {
	a = work.NewMatrix(n, func(i, j int) float64 { return float64((i+j)%7) / 7 })
	m = work.NewMatrix(n, func(i, j int) float64 { return float64((i*j)%5) / 5 })
	c = work.NewMatrix(n, func(int, int) float64 { return 0 })
	want := seq(a, m, c, 0, n)
	run = func(b *testing.B, body func() float64) {
		var got float64
		measure(b, func() { got = body() })
		checkClose(b, got, want)
	}
	return a, m, c, run
}

// checkClose fails b unless got equals want up to the rounding that a
// different order of addition causes.
func checkClose(b *testing.B, got, want float64) {
	if math.Abs(got-want) > 1e-9*math.Max(1, math.Abs(want)) {
		b.Fatalf("got %v, want %v", got, want)
	}
}
