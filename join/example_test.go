package join_test

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/weftrt/weft/join"
	"github.com/weftrt/weft/scheduler"
)

func fib(w *scheduler.Worker, n int) int {
	if n < 20 {
		return fibSeq(n) // below a cutoff, forking costs more than it saves
	}
	a, b := join.Call(w, fib, n-1, n-2)
	return a + b
}

// Call is the zero-allocation form for recursive kernels: a top-level
// function, arguments and results by value.
func ExampleCall() {
	p, _ := scheduler.New()
	defer p.Close()
	x, y, _ := join.CallOn(context.Background(), p, fib, 30, 31)
	fmt.Println(x, y)
	// Output: 832040 1346269
}

// Join takes closures, which may write to variables of the caller.
func ExampleJoin() {
	xs := []int{3, 1, 4, 1, 5, 9, 2, 6}
	var lo, hi int
	_ = join.On(context.Background(), nil, // nil: the default pool
		func(*scheduler.Worker) { lo = sumInts(xs[:4]) },
		func(*scheduler.Worker) { hi = sumInts(xs[4:]) })
	fmt.Println(lo, hi)
	// Output: 9 22
}

// Both takes closures that return their results, which may differ in
// type: the second need not assign a variable of the caller, so a fork
// costs one allocation instead of Join's two.
func ExampleBoth() {
	words := []string{"fork", "join", "steal", "sleep", "wake"}
	p, _ := scheduler.New(scheduler.WithWorkers(2))
	defer p.Close()
	_ = p.Run(context.Background(), func(w *scheduler.Worker) error {
		letters, longest := join.Both(w,
			func(*scheduler.Worker) int { return len(strings.Join(words, "")) },
			func(*scheduler.Worker) string { return slices.MaxFunc(words, byLength) })
		fmt.Println(letters, longest)

		return nil
	})
	// Output: 22 steal
}

// byLength orders strings by length, the first of equals first.
func byLength(a, b string) int { return cmp.Compare(len(a), len(b)) }

func sumInts(xs []int) int {
	s := 0
	for _, x := range xs {
		s += x
	}
	return s
}
