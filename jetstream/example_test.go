package weftjs_test

import (
	"context"
	"fmt"
	"os"
	"sort"
	"sync"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/weftrt/weft/intake"
	weftjs "github.com/weftrt/weft/jetstream"
	"github.com/weftrt/weft/scheduler"
	"github.com/weftrt/weft/slots"
)

// Keyed tasks: a worker runs each customer's tasks one at a time, in the
// order they were published, while different customers' tasks run in
// parallel. The example starts a NATS server in the process; a deployment
// connects to its cluster instead.
func Example_keyed() {
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "weftjs-example")
	defer os.RemoveAll(dir)
	srv, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: server.RANDOM_PORT, JetStream: true, StoreDir: dir, NoSigs: true})
	if err != nil {
		panic(err)
	}
	srv.Start()
	defer srv.Shutdown()
	if !srv.ReadyForConnections(10 * time.Second) {
		panic("the server did not start")
	}

	nc, err := weftjs.Connect(srv.ClientURL())
	if err != nil {
		panic(err)
	}
	defer nc.Close()
	js, _ := jetstream.New(nc)
	src, err := weftjs.NewSource(ctx, js, weftjs.Config{Stream: "ORDERS", Partitions: 4})
	if err != nil {
		panic(err)
	}
	defer src.Close() // after the worker's Shutdown

	customers := []string{"ada", "grace", "linus"}
	for step := 1; step <= 3; step++ {
		for _, c := range customers {
			payload := fmt.Appendf(nil, "%s: step %d", c, step)
			if _, err := weftjs.PublishKeyed(ctx, js, src.KeyedPrefix(), c, payload); err != nil {
				panic(err)
			}
		}
	}

	var mu sync.Mutex
	steps := map[string][]string{}
	var handled sync.WaitGroup
	handled.Add(9)
	pool, _ := scheduler.New(scheduler.WithWorkers(2))
	defer pool.Close()
	w, err := intake.New(intake.Config{
		Source:   src,
		Supplier: slots.NewFixed(4),
		Handler: func(_ context.Context, t intake.Task) error {
			defer handled.Done()
			key := t.(intake.Keyed).Key()
			mu.Lock()
			steps[key] = append(steps[key], string(t.Payload()))
			mu.Unlock()
			return nil
		},
	})
	if err != nil {
		panic(err)
	}
	handled.Wait()
	_ = w.Shutdown(ctx)

	keys := make([]string, 0, len(steps))
	for k := range steps {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Println(steps[k])
	}
	// Output:
	// [ada: step 1 ada: step 2 ada: step 3]
	// [grace: step 1 grace: step 2 grace: step 3]
	// [linus: step 1 linus: step 2 linus: step 3]
}
