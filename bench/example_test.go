package bench_test

import (
	"context"
	"fmt"

	"github.com/weftrt/weft/bench"
	"github.com/weftrt/weft/scheduler"
)

// Every form of a workload computes the same result: the same fib,
// forked by each contender, agrees with the sequential one.
func ExampleForker() {
	pool, err := scheduler.New(scheduler.WithWorkers(2))
	if err != nil {
		panic(err)
	}
	defer pool.Close()
	var onPool int
	err = pool.Run(context.Background(), func(w *scheduler.Worker) {
		onPool = bench.FibFork(bench.Weft(w), 25, 10)
	})
	if err != nil {
		panic(err)
	}
	fmt.Println("sequential:", bench.FibSeq(25))
	fmt.Println("inline:    ", bench.FibFork(bench.Inline{}, 25, 10))
	fmt.Println("weft:      ", onPool)
	fmt.Println("goroutines:", bench.FibFork(bench.Goroutines{}, 25, 10))
	// Output:
	// sequential: 75025
	// inline:     75025
	// weft:       75025
	// goroutines: 75025
}
