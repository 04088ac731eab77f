// Package weftjs is an intake.Source over NATS JetStream, so that worker
// processes on many machines share one queue of tasks. Its import path is
// github.com/weftrt/weft/jetstream; its name is weftjs so that it does not
// clash with nats.go's own jetstream package, which a user imports beside
// it:
//
//	import (
//		"github.com/nats-io/nats.go/jetstream"
//		"github.com/weftrt/weft/jetstream" // package weftjs
//	)
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
//	Ack         +ACK as a request, its confirmation waited for (a
//	            double ack): once it returns nil, the task will not come
//	            back. The worker acks through AckAsync (an
//	            intake.AsyncAcker), which sends the +ACK with a reply
//	            subject on an inbox the Source keeps, and hears the
//	            confirmation there: no goroutine waits out each ack
//	Nack(d)     -NAK, with a delay when d > 0 (NakWithDelay): a failure,
//	            and the redelivery counts
//	HandBack    (a task returned unrun: shutdown, pause) the message is
//	            published again to its subject, carrying its count of
//	            deliveries so far (HeaderDeliveries), then the original
//	            is acked: the hand-back counts no delivery
//	InProgress  +WPI: AckWait starts over; the worker sends it for long
//	            tasks (the Source is an intake.Leaser)
//	Terminate   the task is stored in the dead-letter stream, then +TERM
//	            with the reason (bounded) as a request, waited for: the
//	            message is deleted, and the reason goes into the
//	            server's advisory
//
// # Counting deliveries
//
// JetStream counts every redelivery of a message, a Nak's included, so a
// task handed back unrun by a few graceful restarts in a row would reach
// MaxDeliver without ever having run. So a hand-back replaces the
// message with a copy (at the end of the queue) whose HeaderDeliveries
// holds the deliveries that counted, and a task's Deliveries is that plus
// the copy's own NumDelivered: the failures (Nak) and the deliveries that
// died running (AckWait ran out) count, a return unrun does not. A crash
// between the copy's publish and the original's ack leaves both: the task
// runs twice, which at-least-once allows; it is never lost.
//
// Poison tasks: set Config.MaxDeliver on the consumer and give the worker
// a MaxDeliveries one lower. A task that fails MaxDeliveries times is
// terminated; one delivered a time more than that (it crashed every
// process that ran it, so no failure was ever reported) is terminated
// before it runs. The server's MaxDeliver is the backstop: without the
// Term, a work queue keeps a message that reached it forever.
//
// # The dead-letter stream
//
// A terminated task is stored first in the dead-letter stream
// (Config.DeadLetterStream, "WEFT_TASKS_DEAD" by default; off with
// Config.NoDeadLetter) with its payload, its headers and Weft-Dead-*
// headers: the reason, the delivery count, the stream, subject and
// sequence it had. If that fails the task is not terminated (it comes
// back after AckWait); the worker counts a terminate only once the server
// confirmed the +TERM. Replay, or `weftjs replay`, puts records back;
// each copy carries a Nats-Msg-Id naming its record, so two replays at
// once (or one run again after a failed delete) put a task back once. A
// record's own ID names the message's stream, sequence and the time it
// was stored, so a stream deleted and made again (its sequences start
// over) cannot pass a new task's record off as an old one's. Headers
// whose keys nats.go cannot publish (another client may have stored
// them: the server does not check) are left out of the record, or it
// could never be stored. The dead-letter stream and subject must not be
// the work stream's: NewSource refuses that (ErrConfig).
//
// A task that took up nearly all of the server's max_payload does not fit
// one record with the Weft-Dead-* headers added. Its payload is then
// stored in part records (Weft-Dead-Part-Of, Weft-Dead-Part), and the
// record, published once they are all stored, carries the headers, no
// payload, and the parts' sequences (HeaderDeadParts); Replay joins them
// again. Only a task whose own headers leave no room for the Weft-Dead-*
// ones (JetStream stores at most 64 KiB of headers with a message) cannot
// be stored: Terminate fails with ErrDeadLetter and ErrRecordTooLarge,
// naming the sizes, and the task is kept.
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
// handed back.
//
// A message on an inbox is a server status only if it has no reply
// subject: a stream message always carries the server's ack subject, so
// one with a reply is a task whatever its headers or body (a producer may
// publish an empty message with a Status header); one with a reply but
// no JetStream metadata is set aside and reported (Config.OnError),
// never run. When the server answers "come back later" (408 Requests
// Pending, 409 Exceeded MaxWaiting: typically at MaxAckPending) the poll
// pauses, doubling the pause with each such answer in a row, with
// jitter, up to a second (Stats.ThrottledPolls counts them). A keyed
// poll pauses only the consumer that said so, and sweeps the others.
//
// # Keyed tasks
//
// With Config.Partitions (N > 0), a task may carry a key (a customer, a
// document), and the workers of a stream run each key's tasks in publish
// order, one at a time, each key on one worker process at a time while
// that worker lives. It rests on the server's own features:
//
//   - A producer publishes with PublishKeyed (or Source.PublishKey) to
//     "<base>.k.<token>", the token the key in unpadded base64url (any
//     key: dots, wildcards, spaces, any bytes), the token also in the
//     Weft-Key-Token header (HeaderKeyToken), which is where workers read
//     the key, and the key in the Weft-Key header for people. The
//     stream's subject transform (server 2.10+) stores it on
//     "<base>.p.{{partition(N,1)}}": the server's hash of the token picks
//     the partition, so a key always lands in the same one, in publish
//     order. The token is left out of the stored subject so that each
//     partition's consumer filters on a literal subject, which the server
//     serves much faster than a wildcard. A worker checks that the
//     header's token belongs to the partition that delivered the task; a
//     task without one that does (written by hand) is reported and runs
//     in order with the partition's other such tasks.
//   - Each partition has its own durable pull consumer, "<Consumer>_p<i>",
//     with the pinned-client priority policy (server 2.11+): the server
//     delivers its messages to one client at a time, the pinned one, whose
//     pull requests carry the pin ID the server gave it (Nats-Pin-Id); a
//     request without it waits while another client is pinned, one with a
//     stale pin gets a 423 status. A pin lapses after PinnedTTL without a
//     request from its client; a worker renews the pins it holds every
//     third of MemberTTL, busy or not.
//   - Workers share the partitions out by rendezvous hashing with bounded
//     loads over the live members, listed in a key-value bucket
//     (MemberBucket) whose entries expire after MemberTTL unless renewed:
//     every worker computes the same assignment from the same list, each
//     gets N/members partitions or one more, and a join or a leave moves
//     few. A worker pulls only the partitions assigned to it. One that
//     loses a partition (a join) stops pulling it, finishes and settles
//     the tasks it holds from it, renewing its pin meanwhile however long
//     they take, then unpins it, so that the new owner,
//     whose pulls the server held back meanwhile, starts after the last
//     of them (only if the pin is still its own: the server's unpin names
//     no pin, and one that lapsed may be the new owner's by then). A
//     worker that dies keeps its pins until PinnedTTL passes.
//   - Inside a worker, intake runs a key's tasks one at a time, in the
//     order it got them (intake.Keyed). Several pollers may poll at once:
//     a partition is not pulled again until the worker has Taken every
//     task of its previous pull (intake.OrderKeeper), so two polls never
//     race with tasks of the same partition.
//
// Unkeyed tasks ("<base>.<token>", Publish) go through Consumer, filtered
// to them, and share the worker's slots with the partitions.
//
// What holds: a key's tasks run in publish order and never two at once
// while the worker holding its partition lives and reaches the server
// (and the server is not restarted during a handover: see below).
// They run again, out of order, when they are redelivered: a task
// that failed (its retry comes after the key's later tasks: JetStream
// cannot hold a key back as MemQueue does), one whose ack was lost, one a
// dead worker held. When a worker dies or is cut off for longer than
// PinnedTTL, another takes its partitions: the tasks it had running may
// still be running there (at least once), so one key may run on two
// workers within that window, and its held tasks run again after AckWait.
// With PinnedTTL at least AckWait (the default) they are due before the
// partition moves, and come first. Handlers must be idempotent.
//
// Tasks handed back unrun (shutdown, pause) are not republished, which
// would put them behind their key's later tasks: they are Nak'd, in
// stream order, once the worker holds no other task of their partition,
// and the partition is not pulled again (nor let go of) until the server
// has confirmed each Nak (for up to two seconds): the server takes acks
// and pull requests in on separate goroutines, so a pull sent after a
// mere Nak could still be served first. They run again first. A poll
// cancelled while a partition's answer is on its way (a pause, a
// shutdown) waits for the rest of that short answer and returns it, to
// be handed back, rather than drop it (it would come back only after
// AckWait, behind its key's later tasks). Such a return counts a
// delivery: leave MaxDeliver room for the restarts you expect.
//
// # When the server goes away
//
// Connect sets nats.go to reconnect forever, with jitter, and to fail
// publishes at once while disconnected instead of buffering them. A poll
// in flight ends as soon as its connection drops (the server forgets the
// request), and the tasks it had brought run: handed back while the
// connection is down, each would count a delivery. A poll while
// disconnected waits up to PollWait for the connection to come back,
// then fails, and the worker backs off (intake.Config.PollBackoff). The next poll binds to the consumer
// afresh (no lock is held across that lookup, and it is bounded to a
// second), creating it again if the server came back without it; so do
// the partitions' consumers once a pull finds one gone (a 503 status:
// deleted, or its stream made anew). A keyed poll that fails on one
// consumer after others brought tasks returns those tasks, to run, and
// reports the failure (Config.OnError): handed back, each would count a
// delivery. Acks
// that fail are counted (intake.Stats.SettleErrors); their tasks come back after
// AckWait, and are run again: at least once. A connection closed for good
// (nats.go gave up, say on rotated credentials) fails every poll with
// ErrConnClosed and the cause; Run returns it. A Source that was closed
// (Source.Close) refuses Poll, Publish and PublishKey with ErrClosed.
//
// A server restarted on its store comes back without the member bucket
// (it is kept in memory) and without the pins. A worker that finds the
// bucket gone makes it again; until PinnedTTL has passed, the members it
// listed before still count in the assignment (the others may not have
// renewed yet), so that a restart moves no partition, and while the
// bucket cannot be read a worker keeps renewing the pins of the
// partitions it owns or holds tasks of. One window stays open: a
// partition handed from one worker to another across a restart (the old
// owner still running a task of it) can run one key on both, because the
// server forgot the old owner's pin. Handlers must be idempotent.
//
// The nested module keeps nats.go and nats-server out of weft's core
// go.mod.
package weftjs
