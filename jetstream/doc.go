// Package weftjs is an intake.Source over NATS JetStream, so that worker
// processes on many machines share one queue of tasks. Its import path is
// github.com/weftrt/weft/jetstream; its name is weftjs so that it does not
// clash with nats.go's own jetstream package, which a user imports beside
// it.
//
// The slots are the concurrency, as in package intake: with
// slots.NewFixed(16) a worker runs up to 16 handlers at once, each on a
// goroutine of its own, and asks the server for no more messages than it
// has free slots.
//
//	nc, err := weftjs.Connect("nats://n1:4222,nats://n2:4222") // reconnects for ever
//	js, err := jetstream.New(nc)
//	src, err := weftjs.NewSource(ctx, js, weftjs.Config{Stream: "TASKS", MaxDeliver: 5})
//	defer src.Close() // after the worker's Shutdown
//	w, err := intake.New(intake.Config{
//		Source:        src,
//		Supplier:      slots.NewFixed(16),
//		MaxDeliveries: 4, // MaxDeliver - 1: poison tasks go to the dead-letter stream
//		Handler: func(ctx context.Context, t intake.Task) error {
//			return process(ctx, t.Payload())
//		},
//	})
//	...
//	err = src.Publish(ctx, payload) // from any process
//
// NewSource creates the work-queue stream and its durable pull consumer,
// or binds to them (Config.BindOnly). A task's lease is the consumer's
// AckWait, kept by the worker's heartbeats; an Ack is a double ack, so a
// task acknowledged does not come back; a task returned unrun (a pause,
// a shutdown) is published again and does not count as a delivery. A
// task that fails MaxDeliveries times, or is poison, is terminated and
// copied to a dead-letter stream (Config.DeadLetterStream), which Replay,
// or the command weftjs replay, puts back.
//
// Keyed tasks (Config.Partitions, PublishKeyed): a key's tasks run one at a
// time and in publish order, across all the worker processes, each
// partition owned by one process at a time; the partitions of a process
// that dies move to the others once its membership entry expires
// (Config.MemberTTL).
//
// Connect dials with reconnection for ever; when the server goes away,
// polls fail and are backed off, settlements fail and their tasks come
// back when their leases end, and nothing is lost. Package natstest
// starts a JetStream-enabled server inside the process, for tests and
// local runs.
//
// docs/jetstream.md tells how the source works (the pull protocol,
// counting deliveries, the dead-letter stream, keyed partitions, outages)
// and how to size slots, AckWait and MaxAckPending.
package weftjs
