// Package bench holds the workloads that weft's benchmarks and its
// benchmark harness (bench/cmd/weftbench) run, each written once per
// contender: sequential Go, weft's closure form (join.Join), weft's
// zero-allocation form (join.Call), and goroutines with sync.WaitGroup.
// Every contender of a workload computes the same result, so callers can
// check it.
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
