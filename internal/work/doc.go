// Package work holds the workloads that weft's benchmarks (bench) and its
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
package work
