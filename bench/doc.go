// Package bench holds the workloads that weft's benchmarks and its
// benchmark harness (bench/cmd/weftbench) run.
//
// The fork-join workloads (fib, mergesort, and an unbalanced tree walk)
// are written once against Forker, a two-way fork, so that every
// contender runs the same code and only the fork differs: Inline (no
// parallelism), Weft (join.Call on a pool's worker), Goroutines (a
// goroutine and a sync.WaitGroup), Errgroup, and Semaphore (a goroutine
// while a token is free, else inline). Weft's zero-allocation forms
// (FibValues, FibPlain, FibCutoffValues, TreeValues) and the plain
// sequential code (FibSeq, TreeSeq) are written out by hand. Every form of a workload
// computes the same result, so callers can check it.
//
// The loop workloads (Uniform, Triangular, MulRows; see loops.go) are
// kernels over an index range that every contender cuts differently:
// LoopSeq, LoopGoroutines, LoopErrgroup, and par (LoopPar, LoopParWith,
// MatMulPar).
// conc's iter.Map runs them in the bench/contenders module.
//
// The tree-sum workload (NewTreeSum) is Spice's benchmark: a complete
// binary tree of pointer nodes summed with a fork at every inner node.
// Its forms are written out by hand too: TreeSumSeq, TreeSumValues
// (join.Call), TreeSumPlain (join.Plain, then join.Call), TreeSumJoin
// (join.Join), TreeSumBoth (join.Both), TreeSumGoroutines, and
// TreeSumFork for any Forker. Its nodes lie in one slice, and its
// recursion stops at leaves. The boxed tree (NewBoxedTree) is the same
// tree as a Go user builds it, a node per allocation, summed nil first
// with a join at every node: BoxedSumSeq, BoxedSum (the form
// docs/forks.md recommends), BoxedSumCall, BoxedSumJoin,
// BoxedSumPlainJoin, BoxedSumGoroutines and BoxedSumFork.
//
// The benchmarks in this package (go test -bench . ./bench) have stable
// names so that results compare across changes with benchstat:
//
//	BenchmarkFib/full-30/{sequential,weft,weft-both,weft-values,weft-plain,weft-plain-join,goroutines}
//	BenchmarkFib/cutoff-35/{sequential,weft,goroutines}
//	BenchmarkSort/10M/{slices,weft,goroutines}
//	BenchmarkTreeSum/{layers-20,layers-24}/{sequential,goroutines,static-split,weft-values,weft,weft-both}
//	BenchmarkTreeSum/{boxed-20,boxed-24}/{sequential,goroutines,weft-values,weft,weft-plain,weft-plain-join}
//	BenchmarkLoops/{uniform-10M,irregular-6k,tiny-16,tiny-1000}/{sequential,goroutines,errgroup,weft,weft-on}
//	BenchmarkLoops/{tiny-16,tiny-1000}/weft-values (par.ReduceRangeWith: the data as a value, no closure to allocate)
//	BenchmarkLoops/matmul-512/{sequential,goroutines,errgroup,weft}
//	BenchmarkIdle/{no-pool,weft}
//	BenchmarkTick/{baseline,goroutine,weft}
//	BenchmarkWake/{goroutine,weft}
//
// Besides ns/op they report cpu-ns/op, the process CPU time (user +
// system, from getrusage) per operation: on a machine with idle cores,
// wall time alone hides what a spinning scheduler costs. BenchmarkWake
// reports its latency as p50-ns and p99-ns instead.
// BenchmarkTreeSum reports ns/node too, the figure Spice and chili quote.
package bench
