package latch_test

import (
	"fmt"

	"github.com/weftrt/weft/latch"
)

// A counting latch sets its target when the last of its tasks is done;
// a goroutine outside any pool waits on a Blocking target.
func ExampleCount() {
	var done latch.Blocking
	var tasks latch.Count
	tasks.Init(1, &done) // one for the spawning code itself
	results := make([]int, 3)
	for i := range results {
		tasks.Add()
		go func() {
			results[i] = i * 10
			tasks.Done()
		}()
	}
	tasks.Done()
	done.Wait()
	fmt.Println(results)
	// Output: [0 10 20]
}
