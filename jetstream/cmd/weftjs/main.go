package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"runtime"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	natsjs "github.com/nats-io/nats.go/jetstream"
	"github.com/weftrt/weft/intake"
	weftjs "github.com/weftrt/weft/jetstream"
	"github.com/weftrt/weft/jetstream/internal/embedded"
	"github.com/weftrt/weft/scheduler"
	"github.com/weftrt/weft/slots"
)

// The demo's stream and consumer are its own, not the library's defaults
// (WEFT_TASKS, weft): its handler only simulates work and acks what it
// takes, so pointed with -url at a cluster where a real worker uses the
// defaults, it would take real tasks and ack them undone.
const (
	demoStream   = "WEFT_DEMO"
	demoConsumer = "weft_demo"
)

type options struct {
	url      string
	store    string
	tasks    int
	slots    int
	work     time.Duration
	stream   string
	consumer string
	ackWait  time.Duration
	maxDeliv int
	stay     bool
	parts    int      // -partitions
	keys     int      // -keys
	check    bool     // -check-order
	sec      secure   // credentials and TLS, as the nats CLI takes them
	args     []string // arguments after the flags: none is wanted
}

func parseFlags() options {
	var o options
	flag.StringVar(&o.url, "url", "", "NATS server URLs, comma-separated (a cluster); empty: start a server in this process")
	flag.StringVar(&o.store, "store", "", "JetStream store directory of the embedded server (default: a temporary one)")
	flag.IntVar(&o.tasks, "tasks", 20000, "tasks to publish at start")
	flag.IntVar(&o.slots, "slots", 16, "tasks polled or running at once")
	flag.DurationVar(&o.work, "work", time.Millisecond, "simulated work per task")
	flag.StringVar(&o.stream, "stream", demoStream, "work-queue stream (the demo's own: its handler only simulates work and acks what it takes, so never name a stream that holds real tasks)")
	flag.StringVar(&o.consumer, "consumer", demoConsumer, "durable pull consumer, shared by all workers")
	flag.DurationVar(&o.ackWait, "ackwait", 30*time.Second, "the consumer's AckWait: a task's lease")
	flag.IntVar(&o.maxDeliv, "maxdeliver", 5, "the consumer's MaxDeliver; a task failing this often less one is terminated")
	flag.BoolVar(&o.stay, "stay", false, "keep running once the published tasks are done")
	flag.IntVar(&o.parts, "partitions", 0, "partitions for keyed tasks (the stream's subject transform and one pinned consumer each; every worker must agree); 0: no keyed work")
	flag.IntVar(&o.keys, "keys", 0, "publish the tasks over this many keys (task i gets key i mod keys); needs -partitions; 0: unkeyed")
	flag.BoolVar(&o.check, "check-order", false, "check each key's tasks run in publish order and one at a time in this process, and count the runs that do not")
	o.sec.register(flag.CommandLine)
	flag.Parse()
	o.sec.fromEnv(flag.CommandLine, os.LookupEnv)
	o.args = flag.Args()
	return o
}

func main() {
	if len(os.Args) > 1 && os.Args[1] == "replay" { // see replay.go
		if err := replayCmd(os.Args[2:], os.Stdout, os.Stderr); err != nil {
			fmt.Fprintln(os.Stderr, "weftjs:", err)
			os.Exit(1)
		}
		return
	}
	if err := run(parseFlags()); err != nil {
		fmt.Fprintln(os.Stderr, "weftjs:", err)
		os.Exit(1)
	}
}

func run(o options) error {
	if len(o.args) > 0 {
		return fmt.Errorf("unexpected argument %q: a subcommand (replay) comes first, before any flag", o.args[0])
	}
	if o.slots < 1 || o.slots > slots.MaxFixed {
		return fmt.Errorf("-slots %d: want 1 to %d", o.slots, slots.MaxFixed)
	}
	if o.tasks < 0 {
		return fmt.Errorf("-tasks %d: want >= 0 (0: publish none)", o.tasks)
	}
	if o.keys < 0 || o.parts < 0 {
		return fmt.Errorf("-keys %d, -partitions %d: want >= 0", o.keys, o.parts)
	}
	if o.keys > 0 && o.parts == 0 {
		return fmt.Errorf("-keys %d without -partitions: keyed tasks need a partitioned stream (say -partitions 8)", o.keys)
	}
	if o.check && o.keys == 0 {
		return errors.New("-check-order without -keys: only keyed tasks have an order to check")
	}
	secOpts, err := o.sec.options(o.url != "")
	if err != nil {
		return err
	}
	url, stop, err := natsURL(o)
	if err != nil {
		return err
	}
	defer stop()
	nc, err := weftjs.Connect(url, append(secOpts, nats.Name("weftjs"))...)
	if err != nil {
		return explain(err)
	}
	defer nc.Close()
	js, err := natsjs.New(nc)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	src, err := weftjs.NewSource(ctx, js, weftjs.Config{
		Stream: o.stream, Consumer: o.consumer, AckWait: o.ackWait, MaxDeliver: o.maxDeliv,
		Partitions: o.parts,
		OnPartitions: func(owned []int) {
			fmt.Fprintf(os.Stderr, "\npartitions of this worker: %v\n", owned)
		},
	})
	if err != nil {
		return err
	}
	defer src.Close()
	if o.keys > 0 {
		err = publishKeyed(ctx, js, src.KeyedPrefix(), o.tasks, o.keys)
	} else {
		err = publish(ctx, js, src.Subject(), o.tasks)
	}
	if err != nil {
		return err
	}

	// The simulated work sleeps, as a task waiting on I/O would: each
	// sleeping handler holds a pool worker, so the pool needs one per
	// slot (a CPU-bound handler would do with GOMAXPROCS workers).
	pool, err := scheduler.New(scheduler.WithName("weftjs"), scheduler.WithWorkers(max(o.slots, runtime.GOMAXPROCS(0))))
	if err != nil {
		return err
	}
	defer pool.Close()
	h := handler(o.work)
	var order *orderCheck
	if o.check {
		order = newOrderCheck(o.keys)
		h = order.wrap(h)
	}
	w, err := intake.New(intake.Config{
		Source:        src,
		Supplier:      slots.NewFixed(o.slots),
		Pool:          pool,
		MaxDeliveries: max(o.maxDeliv-1, 0),
		Handler:       h,
		OnError:       func(err error) { fmt.Fprintf(os.Stderr, "\n%v\n", err) },
	})
	if err != nil {
		return err
	}
	target := uint64(o.tasks)
	if o.stay {
		target = 0
	}
	control(w, target)
	fmt.Fprintln(os.Stderr)
	sctx, scancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer scancel()
	if err := w.Shutdown(sctx); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	printStats(w.Stats())
	if order != nil {
		order.print()
	}
	return nil
}

// natsURL returns the URL to connect to, starting the embedded server
// when no -url was given, and a function that stops what it started.
func natsURL(o options) (string, func(), error) {
	if o.url != "" {
		return o.url, func() {}, nil
	}
	dir, cleanup := o.store, func() {}
	if dir == "" {
		tmp, err := os.MkdirTemp("", "weftjs-")
		if err != nil {
			return "", nil, err
		}
		dir, cleanup = tmp, func() { os.RemoveAll(tmp) }
	}
	srv, err := embedded.Start(dir, 0)
	if err != nil {
		cleanup()
		return "", nil, err
	}
	fmt.Fprintf(os.Stderr, "embedded NATS server on %s, JetStream in %s\n", srv.ClientURL(), dir)
	return srv.ClientURL(), func() { shutdown(srv); cleanup() }, nil
}

func shutdown(srv *server.Server) {
	srv.Shutdown()
	srv.WaitForShutdown()
}

// publish publishes n tasks, their payloads the numbers 0 .. n-1.
func publish(ctx context.Context, js natsjs.JetStream, subject string, n int) error {
	return publishBatched(ctx, n, func(i int) (natsjs.PubAckFuture, error) {
		return js.PublishAsync(subject, fmt.Appendf(nil, "%d", i))
	})
}

// publishKeyed publishes n tasks over keys keys: task i, payload i, has
// key "key-<i mod keys>", and is its key's task number i / keys.
func publishKeyed(ctx context.Context, js natsjs.JetStream, prefix string, n, keys int) error {
	return publishBatched(ctx, n, func(i int) (natsjs.PubAckFuture, error) {
		return weftjs.PublishKeyedAsync(js, prefix, fmt.Sprintf("key-%d", i%keys), fmt.Appendf(nil, "%d", i))
	})
}

// publishBatched calls publish(i) for i in [0, n), a window of async
// publishes at a time, waiting for each window's acknowledgements.
func publishBatched(ctx context.Context, n int, publish func(i int) (natsjs.PubAckFuture, error)) error {
	const window = 512
	for lo := 0; lo < n; lo += window {
		var acks []natsjs.PubAckFuture
		for i := lo; i < min(lo+window, n); i++ {
			f, err := publish(i)
			if err != nil {
				return err
			}
			acks = append(acks, f)
		}
		for _, f := range acks {
			select {
			case <-f.Ok():
			case err := <-f.Err():
				return err
			case <-ctx.Done():
				return errors.New("publishing: " + ctx.Err().Error())
			}
		}
	}
	return nil
}

// handler simulates a task: it parses the payload (a malformed one is
// poison) and works for d.
func handler(d time.Duration) intake.Handler {
	return func(ctx context.Context, _ *scheduler.Worker, t intake.Task) error {
		var n int
		if _, err := fmt.Sscan(string(t.Payload()), &n); err != nil {
			return intake.Poison(fmt.Errorf("payload %q is not a number", t.Payload()))
		}
		select {
		case <-time.After(d):
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}
