package work_test

import (
	"context"
	"fmt"

	"github.com/weftrt/weft/internal/work"
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
	err = pool.Run(context.Background(), func(w *scheduler.Worker) error {
		onPool = work.FibFork(work.Weft(w), 25, 10)
		return nil
	})
	if err != nil {
		panic(err)
	}
	fmt.Println("sequential:", work.FibSeq(25))
	fmt.Println("inline:    ", work.FibFork(work.Inline{}, 25, 10))
	fmt.Println("weft:      ", onPool)
	fmt.Println("goroutines:", work.FibFork(work.Goroutines{}, 25, 10))
	// Output:
	// sequential: 75025
	// inline:     75025
	// weft:       75025
	// goroutines: 75025
}
