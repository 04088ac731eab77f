package work

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"

	"golang.org/x/sync/errgroup"

	"github.com/weftrt/weft/par"
	"github.com/weftrt/weft/scheduler"
)

// The loop workloads measure par (weft's parallel loops) beside the loops
// Go programs write by hand. Each workload is a kernel over a range,
// written once as a chunk function (lo, hi), so that every contender runs
// the same inner loop and only the way the range is cut and handed out
// differs:
//
//   - LoopSeq: one chunk, the whole range, on the calling goroutine.
//   - LoopGoroutines: GOMAXPROCS equal chunks, a goroutine each, and a
//     sync.WaitGroup: what most Go code does.
//   - LoopErrgroup: errgroup with SetLimit(GOMAXPROCS), a goroutine per
//     chunk, LoopErrgroupChunks chunks per P: the errgroup idiom with a
//     little dynamic balance.
//   - par.ReduceRange (in the benchmarks): recursive halving on join.
//
// A chunk returns a float64 that the contenders add up in range order.

// LoopKernel is a loop workload's chunk function.
type LoopKernel func(lo, hi int) float64

// LoopErrgroupChunks is how many chunks per P the errgroup contender cuts.
const LoopErrgroupChunks = 4

// LoopSeq runs k over [0, n) as one chunk.
func LoopSeq(n int, k LoopKernel) float64 { return k(0, n) }

// LoopGoroutines runs k over [0, n) in GOMAXPROCS equal chunks, a
// goroutine each, joined with a sync.WaitGroup.
func LoopGoroutines(n int, k LoopKernel) float64 {
	return staticChunks(n, runtime.GOMAXPROCS(0), func(parts []float64, run func(i int)) {
		var wg sync.WaitGroup
		for i := range parts {
			wg.Go(func() { run(i) })
		}
		wg.Wait()
	}, k)
}

// LoopErrgroup runs k over [0, n) in LoopErrgroupChunks chunks per P, a
// goroutine each, at most GOMAXPROCS at a time (errgroup.SetLimit).
func LoopErrgroup(n int, k LoopKernel) float64 {
	p := runtime.GOMAXPROCS(0)
	return staticChunks(n, p*LoopErrgroupChunks, func(parts []float64, run func(i int)) {
		var g errgroup.Group
		g.SetLimit(p)
		for i := range parts {
			g.Go(func() error { run(i); return nil })
		}
		_ = g.Wait()
	}, k)
}

// staticChunks cuts [0, n) into (at most) chunks equal parts, has spawn
// run them, and adds their results in order.
func staticChunks(n, chunks int, spawn func(parts []float64, run func(i int)), k LoopKernel) float64 {
	chunks = max(1, min(chunks, n))
	parts := make([]float64, chunks)
	spawn(parts, func(i int) { parts[i] = k(i*n/chunks, (i+1)*n/chunks) })
	var s float64
	for _, x := range parts {
		s += x
	}
	return s
}

// LoopPar runs k over [0, n) with par.ReduceRange on w. Its chunk
// closure captures k, as a user's captures its data, so Go puts it on the
// heap: one allocation per loop.
func LoopPar(w *scheduler.Worker, n int, k LoopKernel, opts ...par.Option) float64 {
	return par.ReduceRange(w, 0, n, 0, func(_ *scheduler.Worker, lo, hi int) float64 { return k(lo, hi) }, addFloat, opts...)
}

// LoopParOn is LoopPar from outside the pool, with par.ReduceRangeOn and
// a closure around k, as LoopPar's: a loop too small to share runs on the
// calling goroutine.
func LoopParOn(ctx context.Context, p *scheduler.Pool, n int, k LoopKernel, opts ...par.Option) (float64, error) {
	return par.ReduceRangeOn(ctx, p, 0, n, 0, func(lo, hi int) float64 { return k(lo, hi) }, addFloat, opts...)
}

// LoopParWith is LoopPar with par.ReduceRangeWith: k is passed as the
// loop's data to a chunk function that captures nothing, so a loop that
// is not split allocates nothing.
func LoopParWith(w *scheduler.Worker, n int, k LoopKernel, opts ...par.Option) float64 {
	return par.ReduceRangeWith(w, k, 0, n, 0, kernelChunk, addFloat, opts...)
}

func kernelChunk(_ *scheduler.Worker, k LoopKernel, lo, hi int) float64 { return k(lo, hi) }

// LoopParWithOn is LoopParWith from outside the pool, with
// par.ReduceRangeWithOn: a loop too small to share runs on the calling
// goroutine and allocates nothing.
func LoopParWithOn(ctx context.Context, p *scheduler.Pool, n int, k LoopKernel, opts ...par.Option) (float64, error) {
	return par.ReduceRangeWithOn(ctx, p, k, 0, n, 0, kernelChunkOn, addFloat, opts...)
}

func kernelChunkOn(k LoopKernel, lo, hi int) float64 { return k(lo, hi) }

func addFloat(a, b float64) float64 { return a + b }

// Uniform is the uniform cheap body: the sum of squares of x(i) =
// (i mod 1024) / 1024 over a range, computed from the index rather than
// read from memory, so that the loop measures the cores and not the
// memory bus (a 10M-element slice of float64 is 80 MB, and summing it is
// bandwidth-bound on a small machine for every contender alike). About a
// nanosecond per element: a floating-point add chain.
func Uniform(lo, hi int) float64 {
	var s float64
	for i := lo; i < hi; i++ {
		x := float64(i&1023) * (1.0 / 1024)
		s += x * x
	}
	return s
}

// SumSquares is the memory-bound variant of Uniform: the sum of squares
// of the elements of xs.
func SumSquares(xs []float64) LoopKernel {
	return func(lo, hi int) float64 {
		var s float64
		for _, x := range xs[lo:hi] {
			s += x * x
		}
		return s
	}
}

// Triangular is the irregular body: item i costs i steps of a dependent
// multiply-add chain (a 64-bit LCG), so the last items cost n times the
// first and equal chunks by count are unequal by cost (the last of P
// chunks holds about 2/P of the work). Each item adds the top 24 bits of
// its state, so every partial sum is an integer well below 2^53 and the
// total is exact whatever order the chunks are added in.
func Triangular(lo, hi int) float64 {
	var s float64
	for i := lo; i < hi; i++ {
		x := uint64(i)
		for range i {
			x = x*6364136223846793005 + 1442695040888963407
		}
		s += float64(x >> 40)
	}
	return s
}

// LoopForkChunks is how many chunks per P LoopFork cuts.
const LoopForkChunks = 16

// LoopFork runs k over [0, n) on a two-way fork: it halves the range
// down to chunks of n / (LoopForkChunks × GOMAXPROCS) elements and forks
// at every halving, so that any Forker (a goroutine per fork, a pool)
// runs the loop the way recursive-splitting libraries do.
func LoopFork(f Forker, n int, k LoopKernel) float64 {
	grain := max(1, n/(runtime.GOMAXPROCS(0)*LoopForkChunks))
	return loopFork(f, 0, n, grain, k)
}

func loopFork(f Forker, lo, hi, grain int, k LoopKernel) float64 {
	if hi-lo <= grain {
		return k(lo, hi)
	}
	mid := lo + (hi-lo)/2
	var a, b float64
	f.Fork(func(f Forker) { a = loopFork(f, lo, mid, grain, k) }, func(f Forker) { b = loopFork(f, mid, hi, grain, k) })
	return a + b
}

// Matrix is a dense square matrix of float64s, row-major.
type Matrix struct {
	N    int
	Vals []float64
}

// NewMatrix returns an n×n matrix whose element (i, j) is f(i, j).
func NewMatrix(n int, f func(i, j int) float64) Matrix {
	m := Matrix{n, make([]float64, n*n)}
	for i := range n {
		for j := range n {
			m.Vals[i*n+j] = f(i, j)
		}
	}
	return m
}

// MulRows computes rows [lo, hi) of c = a × b, i-k-j order so the inner
// loop streams rows of b and c. It returns the sum of the rows computed,
// which the contenders add up as a check.
func MulRows(a, b, c Matrix, lo, hi int) float64 {
	var s float64
	for i := lo; i < hi; i++ {
		s += MulRowCols(a, b, c, i, 0, a.N)
	}
	return s
}

// MulRowCols computes c[i][jlo:jhi] of c = a × b and returns their sum:
// the body of the nested form, which splits each row by columns.
func MulRowCols(a, b, c Matrix, i, jlo, jhi int) float64 {
	n := a.N
	row := c.Vals[i*n+jlo : i*n+jhi]
	clear(row)
	for k := range n {
		aik := a.Vals[i*n+k]
		brow := b.Vals[k*n+jlo : k*n+jhi]
		for j := range row {
			row[j] += aik * brow[j]
		}
	}
	var s float64
	for _, x := range row {
		s += x
	}
	return s
}

// MulStripe computes the columns [jlo, jhi) of rows [ilo, ihi) of
// c = a × b (i-k-j order) and returns their sum. A stripe of b
// MatMulStripe columns wide is 1 MB for n = 512: every row of the stripe
// streams through it.
func MulStripe(a, b, c Matrix, ilo, ihi, jlo, jhi int) float64 {
	var s float64
	for i := ilo; i < ihi; i++ {
		s += MulRowCols(a, b, c, i, jlo, jhi)
	}
	return s
}

// MatMulStripe is the width of the column stripes of MatMulPar.
const MatMulStripe = 256

// MatMulPar is the nested par loop: the columns of c in stripes of
// MatMulStripe (the outer loop), and within each stripe the rows (the
// inner loop, on the worker the stripe's chunk got). For n = 512 the
// outer loop has two stripes, few enough to run inline, so both workers
// of a 2-core machine share one stripe of b at a time; splitting the
// stripes too (MinLen(1)) costs 31% more CPU on the 2-vCPU VM, where the
// two stripes compete for one cache (benchstat, 5 interleaved runs:
// 65.4 → 86.0 ms CPU, 33.2 → 43.1 ms wall).
func MatMulPar(w *scheduler.Worker, a, b, c Matrix) float64 {
	n := a.N
	stripes := (n + MatMulStripe - 1) / MatMulStripe
	return par.ReduceRange(w, 0, stripes, 0, func(w *scheduler.Worker, slo, shi int) float64 {
		var s float64
		for st := slo; st < shi; st++ {
			jlo, jhi := st*MatMulStripe, min((st+1)*MatMulStripe, n)
			s += par.ReduceRange(w, 0, n, 0, func(_ *scheduler.Worker, ilo, ihi int) float64 {
				return MulStripe(a, b, c, ilo, ihi, jlo, jhi)
			}, addFloat)
		}
		return s
	}, addFloat)
}

// LoopDynamicChunks is how many chunks per P LoopDynamic cuts.
const LoopDynamicChunks = 16

// LoopDynamic runs k over [0, n) the way a careful Go programmer writes a
// dynamic scheduler by hand: GOMAXPROCS goroutines take chunks of
// n / (LoopDynamicChunks × GOMAXPROCS) elements off an atomic counter
// until none is left, so a goroutine that drew cheap chunks takes more.
func LoopDynamic(n int, k LoopKernel) float64 {
	p := runtime.GOMAXPROCS(0)
	chunk := max(1, n/(p*LoopDynamicChunks))
	chunks := (n + chunk - 1) / chunk
	parts := make([]float64, chunks)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(p, chunks) {
		wg.Go(func() {
			for {
				c := int(next.Add(1) - 1)
				if c >= chunks {
					return
				}
				parts[c] = k(c*chunk, min((c+1)*chunk, n))
			}
		})
	}
	wg.Wait()
	var s float64
	for _, x := range parts {
		s += x
	}
	return s
}

// MandelbrotSize is the side of the Mandelbrot image, in pixels, and
// MandelbrotIter the most iterations a pixel gets.
const (
	MandelbrotSize = 1024
	MandelbrotIter = 500
)

// Mandelbrot is MandelbrotImage(MandelbrotSize): the loops benchmark's
// irregular picture.
var Mandelbrot = MandelbrotImage(MandelbrotSize)

// MandelbrotImage returns the irregular loop of a picture: its chunk
// computes rows [lo, hi) of a size-square image of the set over
// [-2, 0.5] × [-0.25, 1.25], one index per row, each pixel iterated until
// it escapes or reaches MandelbrotIter. Rows through the set cost a
// hundred times the rows outside it, and the window is off the real axis,
// so that the halves of the rows are unequal (over a window symmetric
// about the axis, two static halves are mirror images, and balance by
// chance). The chunk returns the iterations done, an integer, so the total
// is exact in any order of addition.
func MandelbrotImage(size int) LoopKernel {
	return func(lo, hi int) float64 {
		n := float64(size)
		var total int
		for row := lo; row < hi; row++ {
			ci := -0.25 + 1.5*float64(row)/n
			for col := range size {
				cr := -2 + 2.5*float64(col)/n
				zr, zi, it := 0.0, 0.0, 0
				for ; it < MandelbrotIter && zr*zr+zi*zi <= 4; it++ {
					zr, zi = zr*zr-zi*zi+cr, 2*zr*zi+ci
				}
				total += it
			}
		}
		return float64(total)
	}
}

// MatMulBlock is the width of the column blocks of the nested matrix
// multiply.
const MatMulBlock = 32

// MulRowsBlocked computes rows [lo, hi) of c = a × b a column block of
// MatMulBlock at a time, and returns their sum: the sequential form of
// MatMulNestedPar's loops, which the other contenders run over rows.
func MulRowsBlocked(a, b, c Matrix, lo, hi int) float64 {
	var s float64
	for i := lo; i < hi; i++ {
		for jlo := 0; jlo < a.N; jlo += MatMulBlock {
			s += MulRowCols(a, b, c, i, jlo, min(jlo+MatMulBlock, a.N))
		}
	}
	return s
}

// MatMulNestedParWith is MatMulNestedPar with the inner loop in the value
// form, par.ReduceRangeWith: the row and the matrices are passed as the
// loop's data to a function that captures nothing, so the inner loop,
// short enough to run inline, allocates nothing, where MatMulNestedPar's
// inner closure is allocated on the heap once per row.
func MatMulNestedParWith(w *scheduler.Worker, a, b, c Matrix) float64 {
	return MatMulNestedParWithCount(w, a, b, c, nil)
}

// MatMulNestedParWithCount is MatMulNestedParWith that adds the chunks
// both loops ran to chunks, unless it is nil, as MatMulNestedParCount.
func MatMulNestedParWithCount(w *scheduler.Worker, a, b, c Matrix, chunks *atomic.Int64) float64 {
	blocks := (a.N + MatMulBlock - 1) / MatMulBlock
	return par.ReduceRange(w, 0, a.N, 0, func(w *scheduler.Worker, ilo, ihi int) float64 {
		matRow{chunks: chunks}.count()
		var s float64
		for i := ilo; i < ihi; i++ {
			s += par.ReduceRangeWith(w, matRow{a, b, c, i, chunks}, 0, blocks, 0, mulRowBlocks, addFloat)
		}
		return s
	}, addFloat)
}

// matRow is row i of c = a × b: MatMulNestedParWith's inner loop's data.
type matRow struct {
	a, b, c Matrix
	i       int
	chunks  *atomic.Int64 // nil: not counted
}

func (r matRow) count() {
	if r.chunks != nil {
		r.chunks.Add(1)
	}
}

// mulRowBlocks computes the column blocks [blo, bhi) of row r.i.
func mulRowBlocks(_ *scheduler.Worker, r matRow, blo, bhi int) float64 {
	r.count()
	n := r.a.N
	var s float64
	for bl := blo; bl < bhi; bl++ {
		s += MulRowCols(r.a, r.b, r.c, r.i, bl*MatMulBlock, min((bl+1)*MatMulBlock, n))
	}
	return s
}

// MatMulNestedPar is the nested loop as a par user writes it: a loop over
// the rows of c whose body loops over its column blocks of MatMulBlock,
// both par loops, the inner one on the worker its row's chunk got.
func MatMulNestedPar(w *scheduler.Worker, a, b, c Matrix) float64 {
	return MatMulNestedParCount(w, a, b, c, nil)
}

// MatMulNestedParCount is MatMulNestedPar that adds the chunks both loops
// ran to chunks, unless it is nil: the harness divides CPU by them.
func MatMulNestedParCount(w *scheduler.Worker, a, b, c Matrix, chunks *atomic.Int64) float64 {
	n := a.N
	blocks := (n + MatMulBlock - 1) / MatMulBlock
	count := func() {
		if chunks != nil {
			chunks.Add(1)
		}
	}
	return par.ReduceRange(w, 0, n, 0, func(w *scheduler.Worker, ilo, ihi int) float64 {
		count()
		var s float64
		for i := ilo; i < ihi; i++ {
			s += par.ReduceRange(w, 0, blocks, 0, func(_ *scheduler.Worker, blo, bhi int) float64 {
				count()
				var s float64
				for bl := blo; bl < bhi; bl++ {
					s += MulRowCols(a, b, c, i, bl*MatMulBlock, min((bl+1)*MatMulBlock, n))
				}
				return s
			}, addFloat)
		}
		return s
	}, addFloat)
}
