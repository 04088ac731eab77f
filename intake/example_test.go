package intake_test

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/weftrt/weft/intake"
	"github.com/weftrt/weft/scheduler"
	"github.com/weftrt/weft/slots"
)

// A worker squares numbers from an in-process queue, two at a time. A
// payload that is not a number is poison: retrying will not help.
func Example() {
	pool, _ := scheduler.New(scheduler.WithWorkers(2))
	defer pool.Close()
	queue := intake.NewMemQueue(intake.MemQueueConfig{PollWait: 10 * time.Millisecond})
	for _, p := range []string{"3", "4", "four", "5"} {
		queue.Put([]byte(p))
	}

	var mu sync.Mutex
	var squares []int
	w, err := intake.New(intake.Config{
		Source:   queue,
		Supplier: slots.NewFixed(2), // at most two tasks polled or running
		Pool:     pool,
		Handler: func(_ context.Context, _ *scheduler.Worker, t intake.Task) error {
			n, err := strconv.Atoi(string(t.Payload()))
			if err != nil {
				return intake.Poison(err)
			}
			mu.Lock()
			squares = append(squares, n*n)
			mu.Unlock()
			return nil
		},
	})
	if err != nil {
		panic(err)
	}
	for queue.Len() > 0 {
		time.Sleep(time.Millisecond)
	}
	_ = w.Shutdown(context.Background())

	slices.Sort(squares)
	fmt.Println("squares:", squares)
	for _, d := range queue.Terminated() {
		fmt.Printf("terminated %q\n", d.Payload)
	}
	s := w.Stats()
	fmt.Printf("acked %d, terminated %d, slots in use %d\n", s.Acked, s.Terminated, s.Slots.InUse)
	// Output:
	// squares: [9 16 25]
	// terminated "four"
	// acked 3, terminated 1, slots in use 0
}

// Pause stops a worker from starting tasks; what arrives meanwhile waits
// in the source until Resume.
func ExampleWorker_Pause() {
	queue := intake.NewMemQueue(intake.MemQueueConfig{PollWait: 10 * time.Millisecond})
	done := make(chan string)
	w, _ := intake.New(intake.Config{
		Source:   queue,
		Supplier: slots.NewFixed(1),
		Handler: func(_ context.Context, _ *scheduler.Worker, t intake.Task) error {
			done <- string(t.Payload())
			return nil
		},
	})
	defer w.Close()

	w.Pause()
	queue.Put([]byte("report"))
	time.Sleep(20 * time.Millisecond)
	fmt.Println("paused; waiting in the queue:", queue.Backlog())
	w.Resume()
	fmt.Println("ran:", <-done)
	// Output:
	// paused; waiting in the queue: 1
	// ran: report
}
