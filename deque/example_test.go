package deque_test

import (
	"fmt"

	"github.com/weftrt/weft/deque"
)

// The owner works at the bottom, last in first out; a thief takes the
// oldest element from the top.
func ExampleDeque() {
	var d deque.Deque[string]
	for _, s := range []string{"a", "b", "c"} {
		d.Push(&s)
	}
	stolen, res := d.Steal()
	popped, _ := d.Pop()
	fmt.Println(*stolen, res, *popped, d.Len())
	// Output: a Success c 1
}

func ExampleInjector() {
	var q deque.Injector[int]
	for i := range 3 {
		q.Push(&i)
	}
	for x, ok := q.Pop(); ok; x, ok = q.Pop() {
		fmt.Print(*x, " ")
	}
	fmt.Println()
	// Output: 0 1 2
}
