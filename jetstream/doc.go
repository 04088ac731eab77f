// Package jetstream is an intake.Source over NATS JetStream, so that
// worker processes on many machines share one queue of tasks.
//
// # The protocol
//
// Tasks are messages on a stream with work-queue retention, read through
// one durable pull consumer with explicit acks that every worker process
// shares (NewSource creates both, or binds to them with Config.BindOnly).
// The server hands each message to one process at a time and deletes it
// when it is acked or terminated. A task's lease is the consumer's
// AckWait; its delivery count is the server's NumDelivered.
//
// A worker's poll holding n slots sends one pull request for n messages,
// with no_wait and an expiry of PollWait: the server answers at once with
// the messages it has (up to n) and, when it has none, waits up to
// PollWait for the first, returning as soon as there is one. So a poll
// never asks for more messages than the worker has free slots, and no
// message is delivered to a process that has no slot for it.
//
// Settlements map onto the JetStream acknowledgements:
//
//	Ack         +ACK as a request, waited for (a double ack): once it
//	            returns nil, the task will not come back
//	Nack(d)     -NAK, with a delay when d > 0 (NakWithDelay)
//	InProgress  +WPI: AckWait starts over; the worker sends it for long
//	            tasks (the Source is an intake.Leaser)
//	Terminate   +TERM with the reason: the message is deleted, and the
//	            reason goes into the server's advisory
//
// Poison tasks: set Config.MaxDeliver on the consumer and give the worker
// a MaxDeliveries one lower. A task that fails MaxDeliveries times is
// terminated; one delivered a time more than that (it crashed every
// process that ran it, so no failure was ever reported) is terminated
// before it runs. The server's MaxDeliver is the backstop: without the
// Term, a work queue keeps a message that reached it forever.
//
// # Pull requests
//
// The consumer is created and looked up with nats.go's jetstream package,
// but pull requests are sent on the core connection, to
// $JS.API.CONSUMER.MSG.NEXT, and answered on inboxes the Source keeps
// subscribed between polls. jetstream's Fetch subscribes a new inbox for
// every request (a SUB and an UNSUB per poll, for the client and for the
// server) and has no way to ask for "up to n, returning as soon as there
// are any". An inbox is reused only once its request is over (all the
// messages asked for came, or the server ended it with a status); one
// whose request may still be answered (the poll was cancelled, or the
// server went quiet) is unsubscribed, and whatever the server sent it is
// delivered again after AckWait.
//
// # When the server goes away
//
// Connect sets nats.go to reconnect forever, with jitter, and to fail
// publishes at once while disconnected instead of buffering them. A poll
// then fails, the worker releases its slots and backs off
// (intake.Config.PollBackoff), and the next poll binds to the consumer
// afresh, creating it again if the server came back without it. Acks
// that fail are counted (Stats.SettleErrors); their tasks come back after
// AckWait, and are run again: at least once.
//
// The nested module keeps nats.go and nats-server out of weft's core
// go.mod.
package jetstream
