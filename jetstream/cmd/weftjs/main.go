package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/nats-io/nats.go"
	natsjs "github.com/nats-io/nats.go/jetstream"
	"github.com/weftrt/weft/intake"
	weftjs "github.com/weftrt/weft/jetstream"
	"github.com/weftrt/weft/jetstream/natstest"
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

func main() {
	if len(os.Args) > 1 && os.Args[1] == "replay" { // see replay.go
		err := replayCmd(os.Args[2:], os.Stdout, os.Stderr)
		if errors.Is(err, flag.ErrHelp) { // -h: the usage text was asked for
			return
		}
		if err != nil {
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
	if err := o.validate(); err != nil {
		return err
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

	h := handler(o.work)
	var order *orderCheck
	if o.check {
		order = newOrderCheck(o.keys)
		h = order.wrap(h)
	}
	w, err := intake.New(intake.Config{
		Source:        src,
		Supplier:      slots.NewFixed(o.slots),
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
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	srv, err := startEmbedded(ctx, natstest.Options{Dir: o.store}) // no -store: its own temporary one
	if err != nil {
		return "", nil, err
	}
	fmt.Fprintf(os.Stderr, "embedded NATS server on %s, JetStream in %s\n", srv.URL(), srv.Dir())
	return srv.URL(), func() { shutdown(srv) }, nil
}

// startEmbedded starts the embedded server; tests replace it to see that
// flags that cannot work are refused before it is called.
var startEmbedded = natstest.Start

func shutdown(srv *natstest.Server) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := srv.Shutdown(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "weftjs:", err)
	}
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
	return func(ctx context.Context, t intake.Task) error {
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
