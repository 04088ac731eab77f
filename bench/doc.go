// Package bench holds weft's benchmarks: go test -bench . ./bench runs
// them, and bench/cmd/weftbench is the harness that puts weft beside the
// other ways a Go user would run the same work (docs/benchmarks.md). It
// exports nothing: the workloads both run live in internal/work.
//
// The benchmarks in this package (go test -bench . ./bench) have stable
// names so that results compare across changes with benchstat:
//
//	BenchmarkFib/full-30/{sequential,weft,weft-both,weft-values,weft-plain,weft-plain-join,goroutines}
//	BenchmarkFib/cutoff-35/{sequential,weft,goroutines}
//	BenchmarkSort/10M/{slices,weft,goroutines}
//	BenchmarkTreeSum/{layers-20,layers-24}/{sequential,goroutines,static-split,weft-values,weft,weft-both}
//	BenchmarkTreeSum/{boxed-20,boxed-24}/{sequential,goroutines,weft-values,weft,weft-plain,weft-plain-join}
//	BenchmarkLoops/{uniform-10M,uniform-400k,irregular-6k,tiny-16,tiny-1000,mandelbrot-1024}/{sequential,goroutines,errgroup,dynamic,weft,weft-on}
//	BenchmarkLoops/matmul-256-nested/{sequential,goroutines,errgroup,dynamic,weft,weft-values,weft-on}
//	BenchmarkLoops/uniform-400k/{weft-nospin,weft-on-nospin} (sleep.Tunables.BusySpin -1: no busy spin)
//	BenchmarkLoops/{tiny-16,tiny-1000,matmul-256-nested}/weft-values (par.ReduceRangeWith: the data as a value, no closure to allocate; the inner loop's, for matmul)
//	BenchmarkLoops/{tiny-16,tiny-1000}/weft-on-values (par.ReduceRangeWithOn: the same from outside the pool)
//	BenchmarkLoops/matmul-512/{sequential,goroutines,errgroup,weft}
//	BenchmarkLoopTimeline/{uniform-400k,matmul-256-nested} (weft only: where a loop's second worker loses its time)
//	BenchmarkIdle/{no-pool,weft}
//	BenchmarkTick/{baseline,goroutine,weft}
//	BenchmarkTickBesideBusy/{weft,weft-nospin} (-cpu 2 or more: a busy task that does not fork, and trickled jobs)
//	BenchmarkWake/{goroutine,weft}
//
// Besides ns/op they report cpu-ns/op, the process CPU time (user +
// system, from getrusage) per operation: on a machine with idle cores,
// wall time alone hides what a spinning scheduler costs. BenchmarkWake
// reports its latency as p50-ns and p99-ns instead.
// BenchmarkTreeSum reports ns/node too, the figure Spice and chili quote.
// BenchmarkLoopTimeline reports helper-start-µs, end-gap-µs and idle-µs
// per loop (run it with -cpu 2); BenchmarkTickBesideBusy
// cpu-beyond-busy-ns/op.
package bench
