package weftjs

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/weftrt/weft/intake"
)

// task is one delivery of a JetStream message. It settles through the
// message's reply subject, as the JetStream API prescribes ("+ACK",
// "-NAK", "+WPI", "+TERM"), except for a hand-back, which republishes
// the message (see HandBack).
type task struct {
	src  *Source
	msg  *nats.Msg
	meta *nats.MsgMetadata
	id   string
	// carried is the deliveries earlier copies of the message had, as the
	// copy's HeaderDeliveries says (0 for a message as its producer
	// published it).
	carried int

	// key is a keyed task's key (see Source.keyOf); "" for an unkeyed one.
	key string
	// part is the partition a keyed task came from (nil for an unkeyed
	// one); counted says it counts in the partition's held tasks (a
	// message that came outside a poll does not).
	part    *partition
	counted bool
	// entering: t keeps its partition busy until the worker has Taken it
	// (see partition.busy). Guarded by keyed.mu.
	entering bool
	// released is set by the first settlement that ends the task's hold
	// on its partition: the CAS makes it end once, whichever of a
	// settlement and an async ack's confirmation comes first.
	released atomic.Bool
}

var (
	_ intake.HandBacker  = (*task)(nil)
	_ intake.AsyncAcker  = (*task)(nil)
	_ intake.Keyed       = (*task)(nil)
	_ intake.OrderKeeper = (*task)(nil)
)

// Taken is called by the worker once it has taken t in (queued it in its
// key's line, run it, or returned it): see intake.OrderKeeper.
func (t *task) Taken() {
	if t.part != nil {
		t.src.keyed.taken(t)
	}
}

func (s *Source) newTask(msg *nats.Msg) (*task, error) {
	meta, err := msg.Metadata()
	if err != nil {
		return nil, err
	}
	t := &task{src: s, msg: msg, meta: meta, id: strconv.FormatUint(meta.Sequence.Stream, 10)}
	if v := msg.Header.Get(HeaderID); v != "" {
		t.id = v
	}
	// A value that is not a count (a producer's own header) counts as
	// none: it can only make the task run more often, never less.
	if n, err := strconv.Atoi(msg.Header.Get(HeaderDeliveries)); err == nil && n > 0 {
		t.carried = n
	}
	if s.keyed != nil {
		if p := s.keyed.byCon[meta.Consumer]; p != nil && p.index >= 0 {
			t.part = p
			t.key = s.keyOf(msg, p.index)
		}
	}
	return t, nil
}

// keyOf returns the key of a message delivered by partition i: the one
// its HeaderKeyToken encodes, if that token belongs to partition i (the
// server put the message there by the token on its subject). Otherwise it
// reports the message and returns unmarkedKey.
func (s *Source) keyOf(msg *nats.Msg, i int) string {
	tok := msg.Header.Get(HeaderKeyToken)
	if tok != "" && partitionOfToken(tok, s.cfg.Partitions) == i {
		return keyOfToken(tok)
	}
	s.report(fmt.Errorf("weft/jetstream: keyed task on %q has no %s header of its partition (%d) (publish keyed tasks with PublishKeyed): it runs in order with the partition's other such tasks", msg.Subject, HeaderKeyToken, i))
	return unmarkedKey
}

// Key is a keyed task's key (see HeaderKeyToken); "" for an unkeyed task.
func (t *task) Key() string { return t.key }

// release ends a keyed task's hold on its partition, once.
func (t *task) release(handedBack bool) {
	if t.part != nil && t.released.CompareAndSwap(false, true) {
		t.src.keyed.settled(t, handedBack)
	}
}

// ID is the message's stream sequence, the same on every delivery; a
// copy made by a hand-back or a replay keeps the ID of the first.
func (t *task) ID() string      { return t.id }
func (t *task) Payload() []byte { return t.msg.Data }

// Deliveries counts the deliveries that ran (or died running): this copy's
// deliveries on the server plus those of the copies before it. A
// hand-back replaces the copy, so a task returned unrun does not count.
func (t *task) Deliveries() int { return t.carried + int(t.meta.NumDelivered) }

// Ack waits for the server to confirm it (a double ack), so that a nil
// error means the task will not come back.
func (t *task) Ack(ctx context.Context) error {
	defer t.release(false)
	return t.msg.AckSync(nats.Context(ctx))
}

// AckAsync is Ack without a goroutine waiting for the server's
// confirmation: done hears it (see acker).
func (t *task) AckAsync(ctx context.Context, timeout time.Duration, done func(error)) {
	if t.msg.Reply == "" {
		t.release(false)
		done(nats.ErrMsgNoReply)
		return
	}
	if t.part != nil {
		inner := done
		done = func(err error) { t.release(false); inner(err) }
	}
	t.src.acker.ack(ctx, t.msg.Reply, timeout, done)
}

// Nack asks for a redelivery after delay; the redelivery counts (the
// handler failed). Like InProgress it is not confirmed: if it is lost,
// AckWait redelivers.
func (t *task) Nack(_ context.Context, delay time.Duration) error {
	defer t.release(false)
	if delay <= 0 {
		return t.msg.Nak()
	}
	return t.msg.NakWithDelay(delay)
}

// InProgress resets the message's AckWait on the server.
func (t *task) InProgress(context.Context) error { return t.msg.InProgress() }

// HandBack returns a task that never ran without counting the delivery.
// JetStream counts every redelivery, a Nak's included, so a few graceful
// restarts in a row (a rolling deploy) would otherwise push healthy tasks
// to MaxDeliver. So the message is published again, to its subject on the
// same stream, with HeaderDeliveries holding the deliveries before this
// one and HeaderID its ID, and once the server has stored the copy the
// original is acked. A crash between the two leaves both: the task may run
// twice, as at-least-once allows, but is never lost. If the copy cannot be
// published, the original is returned with a Nak (which counts).
//
// A keyed task is not republished (the copy would go behind its key's
// later tasks): it is Nak'd, which counts a delivery, together with the
// other tasks of its partition handed back, in stream order, once the
// worker holds no other task of the partition (see partition.returned),
// so that the key's tasks run again first, in order.
func (t *task) HandBack(ctx context.Context) error {
	if t.part != nil {
		t.release(true)
		return nil
	}
	if err := t.src.republish(ctx, t, t.Deliveries()-1); err != nil {
		if nerr := t.msg.Nak(); nerr != nil {
			return fmt.Errorf("weft/jetstream: handing task %s back: %w; the Nak failed too (it comes back after AckWait): %w", t.id, err, nerr)
		}
		return fmt.Errorf("weft/jetstream: handing task %s back: %w; returned with a Nak instead (counts a delivery)", t.id, err)
	}
	t.src.stats.handedBack.Add(1)
	if err := t.msg.AckSync(nats.Context(ctx)); err != nil {
		return fmt.Errorf("weft/jetstream: task %s handed back, but acking the original failed (it may run twice): %w", t.id, err)
	}
	return nil
}

// Terminate stores the task in the dead-letter stream (unless
// NoDeadLetter), then stops its redelivery, which, the stream being a
// work queue, deletes it. The +TERM is sent as a request, so that a nil
// error means the server took it; the reason goes into the server's
// advisory, bounded (see boundReason). If the dead-letter copy cannot be
// stored, the task is not terminated: it comes back after AckWait.
func (t *task) Terminate(ctx context.Context, reason string) error {
	defer t.release(false)
	if t.msg.Reply == "" {
		return nats.ErrMsgNoReply
	}
	reason = boundReason(reason, t.src.maxReason())
	if !t.src.cfg.NoDeadLetter {
		if err := t.src.storeDeadLetter(ctx, t, reason); err != nil {
			return fmt.Errorf("%w: task %s is kept and comes back after AckWait: %w", ErrDeadLetter, t.id, err)
		}
	}
	if _, err := t.src.nc.RequestWithContext(ctx, t.msg.Reply, []byte("+TERM "+reason)); err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			err = fmt.Errorf("the server did not confirm it: %w", err)
		}
		return fmt.Errorf("weft/jetstream: terminating task %s: %w", t.id, err)
	}
	// Counted once the task is terminated, as the worker counts it: the
	// record of a task whose +TERM failed is stored again (a duplicate)
	// when the task comes back.
	if !t.src.cfg.NoDeadLetter {
		t.src.stats.deadLettered.Add(1)
	}
	return nil
}
