package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"time"

	weftjs "github.com/weftrt/weft/jetstream"
	"github.com/weftrt/weft/slots"
)

// options are weftjs's flags, parsed (parseFlags) and then checked
// (validate) before anything starts.
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

// parseFlags parses the command line into options, with the usage text
// of usage.go for -h.
func parseFlags() options {
	var o options
	fs := flag.CommandLine
	fs.Usage = func() { printUsage(fs, mainUsage) }
	fs.StringVar(&o.url, "url", "", "NATS server URLs, comma-separated (a cluster); empty: start a server in this process")
	fs.StringVar(&o.store, "store", "", "JetStream store directory of the embedded server (default: a temporary one, removed at exit); not with -url")
	fs.IntVar(&o.tasks, "tasks", 20000, "tasks to publish at start (0: none, take what producers publish)")
	fs.IntVar(&o.slots, "slots", 16, fmt.Sprintf("handlers running at once, tasks polled included: the concurrency (1 to %d)", slots.MaxFixed))
	fs.DurationVar(&o.work, "work", time.Millisecond, "simulated work per task (0: none)")
	fs.StringVar(&o.stream, "stream", demoStream, "work-queue stream (the demo's own: its handler only simulates work and acks what it takes, so never name a stream that holds real tasks)")
	fs.StringVar(&o.consumer, "consumer", demoConsumer, "durable pull consumer, shared by all workers")
	fs.DurationVar(&o.ackWait, "ackwait", 30*time.Second, fmt.Sprintf("the consumer's AckWait: a task's lease (at least %v)", weftjs.MinAckWait))
	fs.IntVar(&o.maxDeliv, "maxdeliver", 5, "the consumer's MaxDeliver; a task failing this often less one is terminated (0: no limit, else at least 2)")
	fs.BoolVar(&o.stay, "stay", false, "keep running once the published tasks are done")
	fs.IntVar(&o.parts, "partitions", 0, fmt.Sprintf("partitions for keyed tasks (the stream's subject transform and one pinned consumer each; every worker must agree), at most %d; 0: no keyed work", weftjs.MaxPartitions))
	fs.IntVar(&o.keys, "keys", 0, "publish the tasks over this many keys (task i gets key i mod keys); needs -partitions; 0: unkeyed")
	fs.BoolVar(&o.check, "check-order", false, "check each key's tasks run in publish order and one at a time in this process, and count the runs that do not")
	o.sec.register(fs)
	_ = fs.Parse(os.Args[1:]) // flag.CommandLine exits on an error
	o.sec.fromEnv(fs, os.LookupEnv)
	o.args = fs.Args()
	return o
}

// validate refuses flags no worker can run with, each error naming the
// flag and its value, so that run stops before anything starts: the
// embedded server, the connection, the stream. (The secure flags are
// checked by secure.options, also before.)
func (o options) validate() error {
	if len(o.args) > 0 {
		return fmt.Errorf("unexpected argument %q: a subcommand (replay) comes first, before any flag", o.args[0])
	}
	if o.url != "" && o.store != "" {
		return fmt.Errorf("-store %s with -url: the store directory is the embedded server's, which -url does not start", o.store)
	}
	if o.tasks < 0 {
		return fmt.Errorf("-tasks %d: want >= 0 (0: publish none)", o.tasks)
	}
	if o.slots < 1 || o.slots > slots.MaxFixed {
		return fmt.Errorf("-slots %d: want 1 to %d", o.slots, slots.MaxFixed)
	}
	if o.work < 0 {
		return fmt.Errorf("-work %v: want >= 0 (0: no simulated work)", o.work)
	}
	if o.stream == "" {
		return fmt.Errorf("-stream %q: want a name (empty would mean the library's default, %s, where real tasks may be)", o.stream, "WEFT_TASKS")
	}
	if o.consumer == "" {
		return fmt.Errorf("-consumer %q: want a name (empty would mean the library's default, %s, which real workers may use)", o.consumer, "weft")
	}
	if o.ackWait < weftjs.MinAckWait {
		return fmt.Errorf("-ackwait %v: want at least %v (the worker renews a running task's lease every third of it)", o.ackWait, weftjs.MinAckWait)
	}
	if o.maxDeliv < 0 || o.maxDeliv == 1 {
		return fmt.Errorf("-maxdeliver %d: want 0 (no limit) or at least 2 (the worker terminates a task that failed maxdeliver-1 times; with 1, a task that failed once would stay in the stream, never delivered again)", o.maxDeliv)
	}
	if o.parts < 0 || o.parts > weftjs.MaxPartitions {
		return fmt.Errorf("-partitions %d: want 0 (no keyed work) to %d", o.parts, weftjs.MaxPartitions)
	}
	if o.keys < 0 {
		return fmt.Errorf("-keys %d: want >= 0 (0: unkeyed tasks)", o.keys)
	}
	if o.keys > 0 && o.parts == 0 {
		return fmt.Errorf("-keys %d without -partitions: keyed tasks need a partitioned stream (say -partitions 8)", o.keys)
	}
	if o.check && o.keys == 0 {
		return errors.New("-check-order without -keys: only keyed tasks have an order to check")
	}
	return nil
}
