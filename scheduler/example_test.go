package scheduler_test

import (
	"context"
	"fmt"

	"github.com/weftrt/weft/scheduler"
)

func ExamplePool_Run() {
	p, err := scheduler.New(scheduler.WithWorkers(4), scheduler.WithName("example"))
	if err != nil {
		panic(err)
	}
	defer p.Close()
	_ = p.Run(context.Background(), func(w *scheduler.Worker) error {
		fmt.Println("running on one of", w.Pool().Workers(), "workers")
		return nil
	})
	// Output: running on one of 4 workers
}

// A task's panic reaches the caller of Run with its original value.
func ExamplePanic() {
	p, _ := scheduler.New(scheduler.WithWorkers(1))
	defer p.Close()
	defer func() {
		pan := recover().(*scheduler.Panic)
		fmt.Println("recovered:", pan.Value)
	}()
	_ = p.Run(context.Background(), func(*scheduler.Worker) error { panic("out of range") })
	// Output: recovered: out of range
}
