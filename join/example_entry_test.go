package join_test

import (
	"context"
	"fmt"
	"slices"

	"github.com/weftrt/weft/join"
	"github.com/weftrt/weft/scheduler"
)

// interval is a half-open range of integers, the argument of sumSquares.
type interval struct{ lo, hi int }

// sumSquares adds up i*i over s, halving the range with join.Call down to
// a sequential cutoff.
func sumSquares(w *scheduler.Worker, s interval) int {
	if s.hi-s.lo <= 1000 {
		sum := 0
		for i := s.lo; i < s.hi; i++ {
			sum += i * i
		}
		return sum
	}
	mid := s.lo + (s.hi-s.lo)/2
	a, b := join.Call(w, sumSquares, interval{s.lo, mid}, interval{mid, s.hi})
	return a + b
}

// CallOn enters a pool from a goroutine outside it and runs f(x) and f(y),
// possibly in parallel; within them, f forks with join.Call.
func ExampleCallOn() {
	p, err := scheduler.New(scheduler.WithWorkers(2))
	if err != nil {
		panic(err)
	}
	defer p.Close()
	low, high, err := join.CallOn(context.Background(), p, sumSquares, interval{0, 50_000}, interval{50_000, 100_000})
	fmt.Println(low, high, err)
	// Output: 41665416675000 291662916675000 <nil>
}

// On runs two closures from outside the pool and returns when both have;
// each may write to variables of the caller.
func ExampleOn() {
	p, _ := scheduler.New(scheduler.WithWorkers(2))
	defer p.Close()
	xs := []int{7, 3, 9, 1, 4}
	var lo, hi int
	err := join.On(context.Background(), p,
		func(*scheduler.Worker) { lo = slices.Min(xs) },
		func(*scheduler.Worker) { hi = slices.Max(xs) })
	fmt.Println(lo, hi, err)
	// Output: 1 9 <nil>
}

// BothOn runs two closures from outside the pool and returns both results.
func ExampleBothOn() {
	xs := []int{7, 3, 9, 1, 4}
	sum, sorted, err := join.BothOn(context.Background(), nil, // nil: the default pool
		func(*scheduler.Worker) int { return sumInts(xs) },
		func(*scheduler.Worker) []int { return slices.Sorted(slices.Values(xs)) })
	fmt.Println(sum, sorted, err)
	// Output: 24 [1 3 4 7 9] <nil>
}
