// Package bench holds the workloads that weft's benchmarks and its
// benchmark harness (bench/cmd/weftbench) run.
//
// The fork-join workloads (fib, mergesort, and an unbalanced tree walk)
// are written once against Forker, a two-way fork, so that every
// contender runs the same code and only the fork differs: Inline (no
// parallelism), Weft (join.Call on a pool's worker), Goroutines (a
// goroutine and a sync.WaitGroup), Errgroup, and Semaphore (a goroutine
// while a token is free, else inline). Weft's zero-allocation forms
// (FibValues, FibCutoffValues, TreeValues) and the plain sequential code
// (FibSeq, TreeSeq) are written out by hand. Every form of a workload
// computes the same result, so callers can check it.
//
// The benchmarks in this package (go test -bench . ./bench) have stable
// names so that results compare across changes with benchstat:
//
//	BenchmarkFib/full-30/{sequential,weft,weft-values,goroutines}
//	BenchmarkFib/cutoff-35/{sequential,weft,goroutines}
//	BenchmarkSort/10M/{slices,weft,goroutines}
//	BenchmarkIdle/{no-pool,weft}
//	BenchmarkTick/{goroutine,weft}
//	BenchmarkWake/{goroutine,weft}
//
// Besides ns/op and allocs/op they report cpu-ns/op, the process CPU time
// (user + system, from getrusage) per operation: on a machine with idle
// cores, wall time alone hides what a spinning scheduler costs.
package bench
