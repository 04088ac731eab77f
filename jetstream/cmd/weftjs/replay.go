package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/nats-io/nats.go"
	natsjs "github.com/nats-io/nats.go/jetstream"
	weftjs "github.com/weftrt/weft/jetstream"
)

// replayCmd runs `weftjs replay`, with the arguments that follow it.
func replayCmd(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("weftjs replay", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { printUsage(fs, replayUsage) }
	url := fs.String("url", "", "NATS server URLs, comma-separated (required)")
	stream := fs.String("stream", "WEFT_TASKS", "the work-queue stream the tasks were terminated from")
	dead := fs.String("dead", "", "the dead-letter stream (default: the stream's name followed by _DEAD)")
	limit := fs.Int("n", 0, "replay at most this many tasks, oldest first (0: all)")
	timeout := fs.Duration("timeout", time.Minute, "give up after this long")
	var sec secure
	sec.register(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	sec.fromEnv(fs, os.LookupEnv)
	if *url == "" {
		fs.Usage()
		return fmt.Errorf("replay: -url is required: the dead-letter stream lives on a real server")
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("replay: unexpected argument %q", fs.Arg(0))
	}
	if *limit < 0 {
		return fmt.Errorf("replay: -n %d: want >= 0 (0: all)", *limit)
	}
	if *timeout <= 0 {
		return fmt.Errorf("replay: -timeout %v: want more than 0", *timeout)
	}
	opts, err := sec.options(true)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	nc, err := weftjs.ConnectContext(ctx, *url, append([]nats.Option{nats.Name("weftjs replay")}, opts...)...)
	if err != nil {
		return err
	}
	defer nc.Close()
	js, err := natsjs.New(nc)
	if err != nil {
		return err
	}
	n, err := weftjs.Replay(ctx, js, weftjs.Config{Stream: *stream, DeadLetterStream: *dead}, *limit)
	fmt.Fprintf(stdout, "replayed %d task(s) from %s\n", n, deadName(*stream, *dead))
	return err
}

func deadName(stream, dead string) string {
	if dead != "" {
		return dead
	}
	return stream + "_DEAD"
}
