package weftjs_test

import (
	"context"
	"fmt"
	"log"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/weftrt/weft/intake"
	weftjs "github.com/weftrt/weft/jetstream"
	"github.com/weftrt/weft/jetstream/natstest"
	"github.com/weftrt/weft/slots"
)

// A worker on a JetStream work queue: the library example at the top of
// README.md, as written there (keep the two alike). It starts a NATS
// server in the process with natstest; a deployment connects to its
// cluster instead.
func Example() {
	ctx := context.Background()
	srv, err := natstest.Start(ctx, natstest.Options{}) // for tests and trying out, not production
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Shutdown(ctx) // last: removes its temporary store

	nc, err := weftjs.Connect(srv.URL()) // reconnects forever
	if err != nil {
		log.Fatal(err)
	}
	defer nc.Close()
	js, _ := jetstream.New(nc)
	src, err := weftjs.NewSource(ctx, js, weftjs.Config{Stream: "TASKS", MaxDeliver: 5})
	if err != nil {
		log.Fatal(err)
	}
	defer src.Close() // after the worker's Shutdown
	for i := range 3 {
		if err := src.Publish(ctx, fmt.Appendf(nil, "task %d", i)); err != nil {
			log.Fatal(err)
		}
	}

	done := make(chan struct{})
	w, err := intake.New(intake.Config{
		Source:        src,
		Supplier:      slots.NewFixed(16), // up to 16 handlers at once, polled tasks included
		MaxDeliveries: 4,                  // MaxDeliver - 1: poison tasks go to the dead-letter stream
		Handler: func(ctx context.Context, t intake.Task) error {
			fmt.Printf("ran %s\n", t.Payload())
			done <- struct{}{}
			return nil // nil: ack; error: retry later; intake.Poison(err): terminate
		},
	})
	if err != nil {
		log.Fatal(err)
	}
	for range 3 {
		<-done
	}
	if err := w.Shutdown(ctx); err != nil { // waits for the running tasks and their acks
		log.Fatal(err)
	}
	// Unordered output:
	// ran task 0
	// ran task 1
	// ran task 2
}
