package weftjs

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
)

// acker sends double acks (+ACK as a request, confirmed by the server)
// without a goroutine waiting out each confirmation. nats.go's
// Msg.AckSync blocks its caller for the round trip, so a worker that acks
// off its pool threads needs a goroutine per ack in flight: created for
// it (its stack grown on the way into nats.go), parked on a channel, and
// woken by nats.go's response goroutine when the confirmation comes. Here
// every +ACK carries a reply subject on one inbox subscription of the
// source's, and the replies, in whatever order, settle the acks they
// answer on that subscription's goroutine, which drains them in a loop
// while they keep coming.
type acker struct {
	nc *nats.Conn

	mu      sync.Mutex
	sub     *nats.Subscription // subscribed at the first ack
	prefix  string             // the inbox's subject less its last token, "_INBOX.<nuid>."
	next    uint64             // the last token given out
	pending map[uint64]pendingAck
	// sweep times out the pending acks, and fails those whose context
	// ended; it is armed while pending is not empty, to fire at sweepAt.
	sweep   *time.Timer
	sweepAt time.Time
	armed   bool
	closed  bool
}

// pendingAck is an ack sent and not confirmed yet.
type pendingAck struct {
	ctx      context.Context
	deadline time.Time
	timeout  time.Duration
	done     func(error)
}

// ackSweep is the longest a pending ack whose context ended waits to be
// told so: the sweep runs at most this far apart while acks are pending
// (and sooner where a deadline is nearer). A timer per ack, or a
// context.AfterFunc per ack, would cost every ack what only the rare
// lost confirmation needs.
const ackSweep = 100 * time.Millisecond

// ackBody is the double ack's payload.
var ackBody = []byte("+ACK")

// errSourceClosed fails the acks still pending when the source closes.
var errSourceClosed = errors.New("weft/jetstream: the source was closed before the server confirmed the ack")

// ack sends a +ACK for the message whose reply subject is reply, and
// calls done once: with nil when the server confirms it, with the error
// otherwise (the publish failed, no confirmation within timeout, ctx
// ended, the source closed). done may run before ack returns, or on the
// inbox's goroutine or the sweep's; it must not block.
func (a *acker) ack(ctx context.Context, reply string, timeout time.Duration, done func(error)) {
	a.send(ctx, reply, ackBody, timeout, done)
}

// send is ack for any acknowledgement the server confirms when it comes
// as a request: body is "+ACK", or "-NAK" (see keyed.flushLocked).
func (a *acker) send(ctx context.Context, reply string, body []byte, timeout time.Duration, done func(error)) {
	if err := ctx.Err(); err != nil {
		done(err)
		return
	}
	now := time.Now()
	a.mu.Lock()
	if a.closed {
		a.mu.Unlock()
		done(errSourceClosed)
		return
	}
	if a.sub == nil {
		if err := a.subscribeLocked(); err != nil {
			a.mu.Unlock()
			done(fmt.Errorf("weft/jetstream: subscribing the ack inbox: %w", err))
			return
		}
	}
	a.next++
	id := a.next
	// Registered before the +ACK goes out, so that a confirmation that
	// comes back at once finds it.
	a.pending[id] = pendingAck{ctx: ctx, deadline: now.Add(timeout), timeout: timeout, done: done}
	a.armLocked(now, now.Add(timeout))
	prefix := a.prefix
	a.mu.Unlock()
	if err := a.nc.PublishRequest(reply, prefix+strconv.FormatUint(id, 10), body); err != nil {
		if p, ok := a.take(id); ok { // else a sweep failed it already
			p.done(err)
		}
	}
}

// subscribeLocked subscribes the inbox the confirmations come to. Their
// number is bounded by the acks in flight (the worker's MaxSettling), far
// below nats.go's pending limits for a subscription.
func (a *acker) subscribeLocked() error {
	inbox := a.nc.NewInbox()
	prefix := inbox + "."
	// The handler gets the prefix as an argument rather than reading the
	// field: a reply reaching it is no synchronization with the ack that
	// set the field.
	sub, err := a.nc.Subscribe(inbox+".*", func(m *nats.Msg) { a.confirm(prefix, m) })
	if err != nil {
		return err
	}
	a.sub, a.prefix = sub, prefix
	a.pending = make(map[uint64]pendingAck)
	return nil
}

// confirm settles the ack a reply on the inbox answers. The server
// confirms a +ACK with an empty message; a 503 status says that nobody
// took it (the consumer is gone), which nats.go's AckSync reports as
// ErrNoResponders.
func (a *acker) confirm(prefix string, m *nats.Msg) {
	tok, ok := strings.CutPrefix(m.Subject, prefix)
	if !ok {
		return
	}
	id, err := strconv.ParseUint(tok, 10, 64)
	if err != nil {
		return
	}
	p, ok := a.take(id)
	if !ok {
		return // timed out (and reported) before it came, or not ours
	}
	if len(m.Data) == 0 && m.Header.Get("Status") == "503" {
		p.done(nats.ErrNoResponders)
		return
	}
	p.done(nil)
}

// take removes a pending ack, reporting whether it was still pending:
// only the one that takes it calls its done, so done runs once.
func (a *acker) take(id uint64) (pendingAck, bool) {
	a.mu.Lock()
	p, ok := a.pending[id]
	if ok {
		delete(a.pending, id)
	}
	a.mu.Unlock()
	return p, ok
}

// armLocked makes sure the sweep fires by deadline, and within ackSweep
// of now.
func (a *acker) armLocked(now, deadline time.Time) {
	at := now.Add(ackSweep)
	if deadline.Before(at) {
		at = deadline
	}
	if a.armed && !at.Before(a.sweepAt) {
		return
	}
	a.armed, a.sweepAt = true, at
	if a.sweep == nil {
		a.sweep = time.AfterFunc(at.Sub(now), a.expire)
		return
	}
	// Resetting a timer whose run has begun schedules one more run: the
	// one in progress waits for the lock, then clears armed; the extra
	// one sweeps once more, which is harmless.
	a.sweep.Reset(at.Sub(now))
}

// expire fails the pending acks whose context ended or whose deadline
// passed (all of them once the connection is closed), and arms the sweep
// again while some remain.
func (a *acker) expire() {
	type failed struct {
		done func(error)
		err  error
	}
	var fail []failed
	now := time.Now()
	// A connection closed for good will not bring a confirmation: its
	// acks fail now rather than at their deadlines, so that a Shutdown
	// waiting for them returns.
	closed := a.nc.IsClosed()
	a.mu.Lock()
	a.armed = false
	var next time.Time
	for id, p := range a.pending {
		switch {
		case closed:
			fail = append(fail, failed{p.done, nats.ErrConnectionClosed})
		case p.ctx.Err() != nil:
			fail = append(fail, failed{p.done, p.ctx.Err()})
		case !now.Before(p.deadline):
			fail = append(fail, failed{p.done, fmt.Errorf("weft/jetstream: the server did not confirm the ack within %v: %w", p.timeout, context.DeadlineExceeded)})
		default:
			if next.IsZero() || p.deadline.Before(next) {
				next = p.deadline
			}
			continue
		}
		delete(a.pending, id)
	}
	if !next.IsZero() && !a.closed {
		a.armLocked(now, next)
	}
	a.mu.Unlock()
	for _, f := range fail {
		f.done(f.err)
	}
}

// close fails the acks still pending and drops the inbox.
func (a *acker) close() {
	a.mu.Lock()
	a.closed = true
	pending := a.pending
	a.pending = nil
	sub := a.sub
	if a.sweep != nil {
		a.sweep.Stop()
	}
	a.mu.Unlock()
	if sub != nil {
		_ = sub.Unsubscribe()
	}
	for _, p := range pending {
		p.done(errSourceClosed)
	}
}
