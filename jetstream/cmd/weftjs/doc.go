// Command weftjs runs a weft task worker on a NATS JetStream work queue.
// By default it starts a NATS server inside the process (JetStream stored
// in a temporary directory), publishes -tasks tasks, and processes them
// with a progress line; with -url it works on a real NATS server or
// cluster instead.
//
// While it runs, pause and resume it with SIGUSR1 and SIGUSR2, or by
// typing p (pause), r (resume), s (stats) or q (quit) and Enter. SIGINT
// and SIGTERM shut it down gracefully: the tasks running finish and are
// acked, the rest go back to the stream.
//
// weftjs -h prints the usage text (usage.go). Flags that cannot work are
// refused, naming the flag and its value, before anything starts
// (options.validate, flags.go).
//
//	go run ./cmd/weftjs                          # embedded server, 20000 tasks
//	go run ./cmd/weftjs -url nats://a:4222,nats://b:4222 -tasks 0
//	go run ./cmd/weftjs replay -url nats://a:4222   # dead-lettered tasks back (replay.go)
package main
