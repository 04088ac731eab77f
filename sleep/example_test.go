package sleep_test

import (
	"context"
	"fmt"

	"github.com/weftrt/weft/join"
	"github.com/weftrt/weft/scheduler"
	"github.com/weftrt/weft/sleep"
)

// A pool for a service whose jobs trickle in: its idle workers search
// for fewer rounds before they sleep, which costs less CPU per wake-up
// and catches a burst a little later.
func ExampleTunables() {
	pool, err := scheduler.New(scheduler.WithWorkers(4), scheduler.WithSleep(sleep.Tunables{SearchRounds: 4}))
	if err != nil {
		panic(err)
	}
	defer pool.Close()
	var a, b int
	err = pool.Run(context.Background(), func(w *scheduler.Worker) error {
		join.Join(w, func(*scheduler.Worker) { a = 6 * 7 }, func(*scheduler.Worker) { b = 7 * 6 })
		return nil
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(a, b)
	// Output: 42 42
}

// The layout of the one word that holds the jobs event counter and the
// idle and sleeping worker counts.
func ExampleLayout() {
	fmt.Print(sleep.Layout())
	// Output:
	// bits 63..32  jobs event counter (JEC), 32 bits
	// bits 31..16  inactive workers, 16 bits
	// bits 15..0   sleeping workers, 16 bits
}
