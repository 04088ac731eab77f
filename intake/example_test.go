package intake_test

import (
	"context"
	"errors"
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
	var handled sync.WaitGroup
	handled.Add(4) // one run per task: the poison one is not retried
	w, err := intake.New(intake.Config{
		Source:   queue,
		Supplier: slots.NewFixed(2), // at most two tasks polled or running
		Handler: func(_ context.Context, t intake.Task) error {
			defer handled.Done()
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
	handled.Wait()
	_ = w.Shutdown(context.Background()) // waits for the last tasks to be settled

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
		Handler: func(_ context.Context, t intake.Task) error {
			done <- string(t.Payload())
			return nil
		},
	})
	defer w.Close()

	w.Pause()
	queue.Put([]byte("report"))
	fmt.Println("paused:", w.Paused(), "not done in the queue:", queue.Len())
	w.Resume()
	fmt.Println("ran:", <-done)
	// Output:
	// paused: true not done in the queue: 1
	// ran: report
}

// Backoff bounds read from configuration go through NewExponential, which
// refuses those that cannot be meant; Exponential panics on them instead.
func ExampleNewExponential() {
	b, err := intake.NewExponential(100*time.Millisecond, 30*time.Second)
	if err != nil {
		panic(err)
	}
	d := b(3) // after the third failure: 400ms, the upper half drawn at random
	fmt.Println(d >= 200*time.Millisecond && d <= 400*time.Millisecond)

	_, err = intake.NewExponential(time.Second, time.Millisecond)
	fmt.Println(errors.Is(err, intake.ErrBackoff))
	fmt.Println(err)
	// Output:
	// true
	// true
	// weft/intake: invalid backoff: Exponential limit 1ms below base 1s: want limit >= base
}

// A handler error wrapped with Poison terminates the task instead of
// retrying it; errors.Is finds both the cause and ErrPoison.
func ExamplePoison() {
	_, cause := strconv.Atoi("four")
	err := intake.Poison(cause)
	fmt.Println(errors.Is(err, intake.ErrPoison), errors.Is(err, strconv.ErrSyntax))
	fmt.Println(err)
	// Output:
	// true true
	// poison task: strconv.Atoi: parsing "four": invalid syntax
}

// Tasks with a key run one at a time and in the order they were put, per
// key; different keys run in parallel. Here each customer's events must
// be applied in order.
func ExampleMemQueue_PutKey() {
	pool, _ := scheduler.New(scheduler.WithWorkers(4))
	defer pool.Close()
	queue := intake.NewMemQueue(intake.MemQueueConfig{PollWait: 10 * time.Millisecond})
	events := []struct{ customer, event string }{
		{"alice", "open"}, {"bob", "open"}, {"alice", "deposit"},
		{"bob", "deposit"}, {"alice", "close"}, {"bob", "withdraw"},
	}
	for _, e := range events {
		queue.PutKey(e.customer, []byte(e.event))
	}

	var mu sync.Mutex
	applied := map[string][]string{}
	var handled sync.WaitGroup
	handled.Add(len(events))
	w, err := intake.New(intake.Config{
		Source:   queue,
		Supplier: slots.NewFixed(4),
		Handler: func(_ context.Context, t intake.Task) error {
			defer handled.Done()
			customer := t.(intake.Keyed).Key()
			mu.Lock()
			applied[customer] = append(applied[customer], string(t.Payload()))
			mu.Unlock()
			return nil
		},
	})
	if err != nil {
		panic(err)
	}
	handled.Wait()
	_ = w.Shutdown(context.Background())
	fmt.Println("alice:", applied["alice"])
	fmt.Println("bob:", applied["bob"])
	// Output:
	// alice: [open deposit close]
	// bob: [open deposit withdraw]
}
