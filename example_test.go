package weft_test

import (
	"context"
	"fmt"

	"github.com/weftrt/weft/join"
	"github.com/weftrt/weft/scheduler"
)

func fibSeq(n int) int {
	if n < 2 {
		return n
	}
	return fibSeq(n-1) + fibSeq(n-2)
}

// fib forks at every level above 20 and recurses sequentially below.
func fib(w *scheduler.Worker, n int) int {
	if n < 20 {
		return fibSeq(n)
	}
	a, b := join.Call(w, fib, n-1, n-2)
	return a + b
}

// The whole of a fork-join program: a recursive kernel that forks with
// join.Call, entered from outside the pool with join.CallOn (a nil pool
// means the process's default pool).
func Example() {
	x, y, err := join.CallOn(context.Background(), nil, fib, 30, 31)
	if err != nil {
		panic(err)
	}
	fmt.Println(x, y)
	// Output: 832040 1346269
}
