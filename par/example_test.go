package par_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/weftrt/weft/par"
	"github.com/weftrt/weft/scheduler"
)

// ForRange hands each chunk to a tight loop; the result goes into a slot
// per element, so no synchronization is needed.
func ExampleForRange() {
	squares := make([]int, 1000)
	_ = par.ForRangeOn(context.Background(), nil, 0, len(squares), func(_ *scheduler.Worker, lo, hi int) {
		for i := lo; i < hi; i++ {
			squares[i] = i * i
		}
	})
	fmt.Println(squares[999])
	// Output: 998001
}

// Map keeps the input order.
func ExampleMap() {
	_ = scheduler.Default().Run(context.Background(), func(w *scheduler.Worker) {
		words := par.Map(w, []string{"fork", "join", "steal"}, strings.ToUpper)
		fmt.Println(words)
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
	_ = par.ForRangeOn(context.Background(), nil, 0, n, func(w *scheduler.Worker, lo, hi int) {
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
	fmt.Println(c[5][5], c[5][6])
	// Output: 6 0
}

// ForErr stops at the first error.
func ExampleForErr() {
	err := scheduler.Default().Run(context.Background(), func(w *scheduler.Worker) {
		err := par.ForErr(context.Background(), w, 10_000, func(i int) error {
			if i == 1234 {
				return fmt.Errorf("item %d is bad", i)
			}
			return nil
		})
		fmt.Println(err)
	})
	_ = err
	// Output: item 1234 is bad
}

// ForEachSeq feeds a sequence to the pool in batches, in no order.
func ExampleForEachSeq() {
	lines := strings.Lines("a\nbb\nccc\n")
	var total [3]int
	_ = scheduler.Default().Run(context.Background(), func(w *scheduler.Worker) {
		par.ForEachSeq(w, lines, func(line string) {
			total[len(line)-2] = len(line) - 1 // each line has its own slot
		}, par.MinLen(1))
	})
	fmt.Println(total)
	// Output: [1 2 3]
}
