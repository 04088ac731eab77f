package par_test

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/weftrt/weft/par"
	"github.com/weftrt/weft/scheduler"
)

// ForRange hands each chunk to a tight loop; the result goes into a slot
// per element, so no synchronization is needed.
func ExampleForRange() {
	squares := make([]int, 1000)
	_ = par.ForRangeOn(context.Background(), nil, 0, len(squares), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			squares[i] = i * i
		}
	})
	fmt.Println(squares[999])
	// Output: 998001
}

// Map keeps the input order.
func ExampleMap() {
	_ = scheduler.Default().Run(context.Background(), func(w *scheduler.Worker) error {
		words := par.Map(w, []string{"fork", "join", "steal"}, strings.ToUpper)
		fmt.Println(words)
		return nil
	})
	// Output: [FORK JOIN STEAL]
}

// MapReduce combines in input order, so a non-commutative combine works.
func ExampleMapReduce() {
	xs := []int{1, 2, 3, 4}
	s, _ := par.MapReduceOn(context.Background(), nil, xs, "",
		func(x int) string { return fmt.Sprint(x) },
		func(a, b string) string { return a + b })
	fmt.Println(s)
	// Output: 1234
}

// A nested loop uses the worker its chunk received.
func ExampleForRange_nested() {
	const n = 64
	var a, b, c [n][n]float64
	for i := range n {
		a[i][i], b[i][i] = 2, 3
	}
	_ = scheduler.Default().Run(context.Background(), func(w *scheduler.Worker) error {
		par.ForRange(w, 0, n, func(w *scheduler.Worker, lo, hi int) {
			for i := lo; i < hi; i++ {
				par.ForRange(w, 0, n, func(_ *scheduler.Worker, jlo, jhi int) {
					for j := jlo; j < jhi; j++ {
						for k := range n {
							c[i][j] += a[i][k] * b[k][j]
						}
					}
				}, par.MinLen(8))
			}
		}, par.MinLen(1))
		return nil
	})
	fmt.Println(c[5][5], c[5][6])
	// Output: 6 0
}

// ForErr stops at the first error.
func ExampleForErr() {
	err := scheduler.Default().Run(context.Background(), func(w *scheduler.Worker) error {
		err := par.ForErr(context.Background(), w, 10_000, func(i int) error {
			if i == 1234 {
				return fmt.Errorf("item %d is bad", i)
			}
			return nil
		})
		fmt.Println(err)
		return nil
	})
	_ = err
	// Output: item 1234 is bad
}

// ForEachSeq feeds a sequence to the pool in batches, in no order.
func ExampleForEachSeq() {
	lines := strings.Lines("a\nbb\nccc\n")
	var total [3]int
	_ = scheduler.Default().Run(context.Background(), func(w *scheduler.Worker) error {
		par.ForEachSeq(w, lines, func(line string) {
			total[len(line)-2] = len(line) - 1 // each line has its own slot
		}, par.MinLen(1))
		return nil
	})
	fmt.Println(total)
	// Output: [1 2 3]
}

// For calls body once per index; each call writes its own element.
func ExampleFor() {
	_ = scheduler.Default().Run(context.Background(), func(w *scheduler.Worker) error {
		cubes := make([]int, 10)
		par.For(w, len(cubes), func(i int) { cubes[i] = i * i * i })
		fmt.Println(cubes)
		return nil
	})
	// Output: [0 1 8 27 64 125 216 343 512 729]
}

// ForOn is For from a goroutine outside the pool (nil: the default pool).
func ExampleForOn() {
	hits := make([]bool, 100)
	err := par.ForOn(context.Background(), nil, len(hits), func(i int) { hits[i] = i%7 == 0 })
	n := 0
	for _, h := range hits {
		if h {
			n++
		}
	}
	fmt.Println(n, err)
	// Output: 15 <nil>
}

// ForEach hands body a pointer to each element, to update it in place.
func ExampleForEach() {
	type account struct {
		name    string
		balance int
	}
	accounts := []account{{"ada", 100}, {"bob", 250}, {"cy", 40}}
	_ = scheduler.Default().Run(context.Background(), func(w *scheduler.Worker) error {
		par.ForEach(w, accounts, func(_ int, a *account) { a.balance += a.balance / 10 })
		return nil
	})
	fmt.Println(accounts)
	// Output: [{ada 110} {bob 275} {cy 44}]
}

// ForEachOn is ForEach from outside the pool.
func ExampleForEachOn() {
	names := []string{"fork", "join", "steal"}
	err := par.ForEachOn(context.Background(), nil, names, func(i int, s *string) {
		*s = fmt.Sprintf("%d:%s", i, *s)
	})
	fmt.Println(names, err)
	// Output: [0:fork 1:join 2:steal] <nil>
}

// Reduce combines in input order, as a tree: combine must be associative.
func ExampleReduce() {
	xs := make([]int, 1000)
	for i := range xs {
		xs[i] = i + 1
	}
	_ = scheduler.Default().Run(context.Background(), func(w *scheduler.Worker) error {
		sum := par.Reduce(w, xs, 0, func(a, b int) int { return a + b })
		longest := par.Reduce(w, []string{"fork", "steal", "join"}, "", func(a, b string) string {
			if len(b) > len(a) {
				return b
			}
			return a
		})
		fmt.Println(sum, longest)
		return nil
	})
	// Output: 500500 steal
}

// ReduceRangeOn reduces over chunks of a range from outside the pool:
// each chunk loops over its own part, and the results are combined.
func ExampleReduceRangeOn() {
	count, err := par.ReduceRangeOn(context.Background(), nil, 0, 1_000_000, 0,
		func(lo, hi int) int {
			n := 0
			for i := lo; i < hi; i++ {
				if i%3 == 0 || i%5 == 0 {
					n++
				}
			}
			return n
		},
		func(a, b int) int { return a + b })
	fmt.Println(count, err)
	// Output: 466667 <nil>
}

// Filter keeps the elements that pass, in their input order.
func ExampleFilter() {
	_ = scheduler.Default().Run(context.Background(), func(w *scheduler.Worker) error {
		words := []string{"fork", "join", "steal", "sleep", "spin", "wake"}
		s := par.Filter(w, words, func(s string) bool { return strings.HasPrefix(s, "s") })
		fmt.Println(s)
		return nil
	})
	// Output: [steal sleep spin]
}

// MapErr is Map for a function that can fail: it returns nil and the
// first error.
func ExampleMapErr() {
	ctx := context.Background()
	_ = scheduler.Default().Run(ctx, func(w *scheduler.Worker) error {
		nums, err := par.MapErr(ctx, w, []string{"1", "22", "333"}, strconv.Atoi)
		fmt.Println(nums, err)
		nums, err = par.MapErr(ctx, w, []string{"1", "two", "3"}, strconv.Atoi)
		fmt.Println(nums == nil, err)
		return nil
	})
	// Output:
	// [1 22 333] <nil>
	// true strconv.Atoi: parsing "two": invalid syntax
}

// MapOn is Map from outside the pool.
func ExampleMapOn() {
	lengths, err := par.MapOn(context.Background(), nil, []string{"fork", "join", "steal"},
		func(s string) int { return len(s) })
	fmt.Println(lengths, err)
	// Output: [4 4 5] <nil>
}

// ForEachSeqErrOn feeds a sequence to the pool from outside it, stopping
// at the first error.
func ExampleForEachSeqErrOn() {
	var total atomic.Int64
	err := par.ForEachSeqErrOn(context.Background(), nil, slices.Values([]int{3, 1, 4, 1, 5}),
		func(x int) error {
			total.Add(int64(x))
			return nil
		})
	fmt.Println(total.Load(), err)
	// Output: 14 <nil>
}

// sumSquares is a chunk that takes its data as a parameter and captures
// nothing, so passing it costs no allocation.
func sumSquares(_ *scheduler.Worker, xs []float64, lo, hi int) float64 {
	var s float64
	for _, x := range xs[lo:hi] {
		s += x * x
	}
	return s
}

// ReduceRangeWith passes the loop's data beside a chunk that captures
// nothing: a short loop allocates nothing, where a closure over xs would
// be put on the heap.
func ExampleReduceRangeWith() {
	xs := []float64{1, 2, 3, 4}
	_ = scheduler.Default().Run(context.Background(), func(w *scheduler.Worker) error {
		s := par.ReduceRangeWith(w, xs, 0, len(xs), 0, sumSquares, func(a, b float64) float64 { return a + b })
		fmt.Println(s)
		return nil
	})
	// Output: 30
}

// ForRangeWith is ForRange with the data as a value; a function literal
// that uses only its parameters captures nothing either.
func ExampleForRangeWith() {
	xs := []int{1, 2, 3, 4}
	_ = scheduler.Default().Run(context.Background(), func(w *scheduler.Worker) error {
		par.ForRangeWith(w, xs, 0, len(xs), func(_ *scheduler.Worker, xs []int, lo, hi int) {
			for i := lo; i < hi; i++ {
				xs[i] *= 10
			}
		})
		return nil
	})
	fmt.Println(xs)
	// Output: [10 20 30 40]
}

// ReduceRangeWithOn is the value form from outside the pool: a loop this
// short runs on the calling goroutine, and with a chunk that captures
// nothing it allocates nothing, which makes it the form for small loops
// that a request handler runs many times.
func ExampleReduceRangeWithOn() {
	type vec struct{ a, b []float64 }
	dot := func(v vec, lo, hi int) float64 {
		var s float64
		for i := lo; i < hi; i++ {
			s += v.a[i] * v.b[i]
		}
		return s
	}
	v := vec{a: []float64{1, 2, 3}, b: []float64{4, 5, 6}}
	s, err := par.ReduceRangeWithOn(context.Background(), nil, v, 0, len(v.a), 0, dot, func(x, y float64) float64 { return x + y })
	fmt.Println(s, err)
	// Output: 32 <nil>
}

// ForRangeWithOn is ForRangeOn with the data as a value.
func ExampleForRangeWithOn() {
	xs := []int{1, 2, 3, 4}
	err := par.ForRangeWithOn(context.Background(), nil, xs, 0, len(xs), func(xs []int, lo, hi int) {
		for i := lo; i < hi; i++ {
			xs[i] *= 10
		}
	})
	fmt.Println(xs, err)
	// Output: [10 20 30 40] <nil>
}
