package scheduler_test

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/weftrt/weft/scheduler"
	"github.com/weftrt/weft/slots"
)

// A pool of its own, sized and named: New refuses settings that cannot
// work, with an error wrapping a sentinel. Close waits for the tasks
// accepted and for the worker goroutines to exit.
func ExampleNew() {
	p, err := scheduler.New(
		scheduler.WithWorkers(4),
		scheduler.WithName("thumbnails"), // labels the workers in profiles
		scheduler.WithHeartbeat(50*time.Microsecond),
	)
	if err != nil {
		panic(err)
	}
	defer p.Close()
	fmt.Println("workers:", p.Workers())

	_, err = scheduler.New(scheduler.WithWorkers(0))
	fmt.Println("zero workers refused:", errors.Is(err, scheduler.ErrWorkers))
	// Output:
	// workers: 4
	// zero workers refused: true
}

// The process-wide pool needs no setup and is never closed.
func ExampleDefault() {
	err := scheduler.Default().Run(context.Background(), func(w *scheduler.Worker) error {
		fmt.Println("on the default pool:", w.Pool() == scheduler.Default())
		return nil
	})
	fmt.Println(err)
	// Output:
	// on the default pool: true
	// <nil>
}

// Spawn queues a task and returns at once; Close (or Shutdown) waits for
// every task already accepted.
func ExamplePool_Spawn() {
	p, _ := scheduler.New(scheduler.WithWorkers(2))
	var total atomic.Int64
	for i := 1; i <= 100; i++ {
		if err := p.Spawn(context.Background(), func(*scheduler.Worker) { total.Add(int64(i)) }); err != nil {
			fmt.Println(err)
		}
	}
	p.Close()
	fmt.Println("total:", total.Load())
	// Output: total: 5050
}

// Broadcast calls f once on every worker, for per-worker state.
func ExamplePool_Broadcast() {
	p, _ := scheduler.New(scheduler.WithWorkers(4))
	defer p.Close()
	calls := make([]int, p.Workers()) // one slot per worker: no lock needed
	err := p.Broadcast(context.Background(), func(w *scheduler.Worker) {
		calls[w.Index()]++
	})
	fmt.Println(calls, err)
	// Output: [1 1 1 1] <nil>
}

// Shutdown refuses new work, waits for the accepted tasks and stops the
// workers; a context with a deadline bounds the wait.
func ExamplePool_Shutdown() {
	p, _ := scheduler.New(scheduler.WithWorkers(2))
	var finished atomic.Bool
	_ = p.Spawn(context.Background(), func(*scheduler.Worker) { finished.Store(true) })

	err := p.Shutdown(context.Background())
	fmt.Println("shutdown:", err, "task finished:", finished.Load())
	err = p.Run(context.Background(), func(*scheduler.Worker) error {
		return nil
	})
	fmt.Println("run after shutdown:", errors.Is(err, scheduler.ErrClosed))
	// Output:
	// shutdown: <nil> task finished: true
	// run after shutdown: true
}

// Block wraps a wait inside a task. Here the only worker waits for a task
// queued behind it: without Block the pool would deadlock, with it a
// stand-in goroutine runs that task meanwhile.
func ExampleWorker_Block() {
	p, _ := scheduler.New(scheduler.WithWorkers(1))
	defer p.Close()
	ctx := context.Background()
	_ = p.Run(ctx, func(w *scheduler.Worker) error {
		reply := make(chan string)
		_ = p.Spawn(ctx, func(*scheduler.Worker) { reply <- "pong" })
		var got string
		w.Block(func() { got = <-reply }) // f must not use w
		fmt.Println("got", got)
		return nil
	})
	fmt.Println("Block calls:", p.Stats().Blocked)
	// Output:
	// got pong
	// Block calls: 1
}

// A pool that admits at most one outside task at a time: Spawn and Run
// wait for the slot, TrySpawn does not.
func ExampleWithSupplier() {
	p, _ := scheduler.New(scheduler.WithWorkers(2), scheduler.WithSupplier(slots.NewFixed(1)))
	defer p.Close()
	ctx := context.Background()

	release := make(chan struct{})
	_ = p.Spawn(ctx, func(w *scheduler.Worker) {
		w.Block(func() { <-release }) // holds the only slot until released
	})
	err := p.TrySpawn(func(*scheduler.Worker) {})
	fmt.Println("no slot while it is taken:", errors.Is(err, scheduler.ErrNoSlot))

	close(release)
	_ = p.Run(ctx, func(*scheduler.Worker) error { // waits for the slot
		fmt.Println("ran once the slot came back")
		return nil
	})
	s := p.Stats().Slots
	fmt.Println("refusals:", s.Refusals, "max:", s.Max)
	// Output:
	// no slot while it is taken: true
	// ran once the slot came back
	// refusals: 1 max: 1
}

// A spawned task has nobody to re-raise its panic: the pool's panic
// handler receives it instead of the program crashing.
func ExampleWithPanicHandler() {
	panics := make(chan *scheduler.Panic, 1)
	p, _ := scheduler.New(scheduler.WithWorkers(1),
		scheduler.WithPanicHandler(func(pan *scheduler.Panic) { panics <- pan }))
	defer p.Close()

	_ = p.Spawn(context.Background(), func(*scheduler.Worker) { panic("disk full") })
	fmt.Println("handler got:", (<-panics).Value)
	// Output: handler got: disk full
}

// Start and exit hooks run on each worker goroutine, for per-worker setup
// and teardown.
func ExampleWithStartHook() {
	var started, exited atomic.Int32
	p, _ := scheduler.New(scheduler.WithWorkers(3),
		scheduler.WithStartHook(func(int) { started.Add(1) }),
		scheduler.WithExitHook(func(int) { exited.Add(1) }))
	p.Close() // waits for the worker goroutines: both hooks have run on each
	fmt.Println("started:", started.Load(), "exited:", exited.Load())
	// Output: started: 3 exited: 3
}
