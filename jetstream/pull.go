package weftjs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
)

// maxPull caps the messages one pull request asks for, so that an inbox's
// channel always has room for a whole answer (a full channel would make
// nats.go drop messages).
const maxPull = 256

// puller sends a consumer's pull requests and reads their answers on
// inboxes it keeps subscribed from one poll to the next. nats.go's
// jetstream Fetch subscribes a new inbox for every request, which costs
// the client and the server a SUB and an UNSUB per poll, and it cannot
// send the request a worker wants: "up to n messages, waiting up to a
// while for the first but returning as soon as there are any" (no_wait
// with expires).
type puller struct {
	nc      *nats.Conn
	subject string // $JS.API.CONSUMER.MSG.NEXT.<stream>.<consumer>
	// stray takes a stream message that reached an inbox outside any
	// poll (no slot waits for it) and returns it to the stream.
	stray func(*nats.Msg)

	mu   sync.Mutex
	idle []*inbox // inboxes with no request outstanding

	// group, for a partition's consumer, is the priority group its pull
	// requests name; pin is the pin ID the server gave this client (on
	// the Nats-Pin-Id header of the messages it delivers), "" while it
	// has none. Every request carries the pin: the server answers one
	// whose pin is stale with a 423 status, and one without a pin waits
	// while another client holds the partition.
	group string
	pinMu sync.Mutex
	pin   string
}

// inbox is a subscription that answers one request at a time. It goes
// back to the idle list only when its request is known to be over (all
// messages asked for came, or the server said it is done), so that no
// late answer to an old request can be taken for an answer to the next.
type inbox struct {
	sub *nats.Subscription
	ch  chan *nats.Msg
}

// pullRequest is the JetStream API's request for the next messages.
type pullRequest struct {
	Batch   int           `json:"batch"`
	Expires time.Duration `json:"expires,omitempty"`
	NoWait  bool          `json:"no_wait,omitempty"`
	// Group and PinID are the priority group and the pin of a pinned
	// consumer's request.
	Group string `json:"group,omitempty"`
	PinID string `json:"id,omitempty"`
	// MaxBytes, set to 1 in a keep-alive, lets no message through: the
	// request only renews the pin it carries.
	MaxBytes int `json:"max_bytes,omitempty"`
}

func newPuller(nc *nats.Conn, stream, consumer string, stray func(*nats.Msg)) *puller {
	return &puller{nc: nc, subject: fmt.Sprintf("$JS.API.CONSUMER.MSG.NEXT.%s.%s", stream, consumer), stray: stray}
}

// connWatch is how often a poll checks that its connection still holds.
const connWatch = 100 * time.Millisecond

// errConnLost ends a poll whose connection dropped, or was made anew,
// while it waited: its request is lost with the old connection.
var errConnLost = errors.New("the connection was lost while the pull request waited")

// errComeBackLater is a status that says the server has messages but
// not for this request: 408 "Requests Pending" (other requests already
// wait for the messages there are; at MaxAckPending every request gets
// it) or 409 "Exceeded MaxWaiting". Not a failure: the Source backs off
// (see throttle).
var errComeBackLater = errors.New("come back later")

// errPinLost is the 423 status: the pin the request carried is not the
// partition's (it lapsed, or the partition was unpinned); the puller has
// forgotten it, and the next request asks for a new one.
var errPinLost = errors.New("the partition's pin was lost (423)")

// headerPinID is the header on which a pinned consumer's messages carry
// the pin of the client they are delivered to.
const headerPinID = "Nats-Pin-Id"

func (p *puller) getPin() string {
	p.pinMu.Lock()
	defer p.pinMu.Unlock()
	return p.pin
}

// setPin records the pin a message came with. A message delivered to a
// request that carried a pin comes with that same pin (the server
// answers a stale one with a 423, never with messages), so this only
// changes the pin when the request carried none.
func (p *puller) setPin(sent, got string) {
	p.pinMu.Lock()
	defer p.pinMu.Unlock()
	if p.pin == sent {
		p.pin = got
	}
}

// dropPin forgets the pin, if it is still sent: the server has said it is
// stale, or the partition was unpinned.
func (p *puller) dropPin(sent string) {
	p.pinMu.Lock()
	defer p.pinMu.Unlock()
	if p.pin == sent {
		p.pin = ""
	}
}

// pull asks for up to n messages, waiting up to wait for the first.
func (p *puller) pull(ctx context.Context, n int, wait time.Duration) ([]*nats.Msg, error) {
	n = min(n, maxPull)
	// A poll whose context has ended asks for nothing more: a short pull
	// reads its answer to the end (see below), and what it brought would
	// only be handed back (a partition's with a Nak, which counts a
	// delivery).
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	ib, err := p.take()
	if err != nil {
		return nil, err
	}
	pin := ""
	if p.group != "" {
		pin = p.getPin()
	}
	req, _ := json.Marshal(pullRequest{Batch: n, Expires: wait, NoWait: true, Group: p.group, PinID: pin})
	if err := p.nc.PublishRequest(p.subject, ib.sub.Subject, req); err != nil {
		p.discard(ib)
		return nil, err
	}
	// The server answers by wait at the latest; if it does not (it went
	// away), give up a little later.
	timeout := time.NewTimer(wait + time.Second)
	defer timeout.Stop()
	// A request does not survive the connection: a server that restarts
	// (or a failover) forgets it. So the poll ends as soon as the
	// connection drops or has been made anew, rather than wait out the
	// timeout while the new connection could be polled.
	reconnects := p.nc.Stats().Reconnects
	watch := time.NewTicker(connWatch)
	defer watch.Stop()
	msgs := make([]*nats.Msg, 0, n)
	// cancelled is ctx's error once it ended. A partition's pull (its
	// expiry is short: see keyed.poll) then goes on to the end of its
	// answer, which the server sends at once: a message dropped on the
	// wire would come back only after AckWait, and the partition's next
	// pull would meanwhile bring the key's later tasks, which would run
	// before it. What the answer brings is returned with the error, and
	// the worker hands it back (see partition.returned).
	var cancelled error
	ctxDone := ctx.Done()
	for {
		select {
		case <-watch.C:
			if !p.nc.IsConnected() || p.nc.Stats().Reconnects != reconnects {
				// Messages that came before the drop and are not read yet
				// are this poll's as much as those read: as strays they
				// would be handed back on a connection that is down, which
				// fails and counts a delivery (see Source.Poll).
				_ = ib.sub.Unsubscribe()
				p.collect(ib, &msgs, pin)
				return msgs, errConnLost
			}
		case m := <-ib.ch:
			done, err := p.answer(m, &msgs, pin)
			if !done {
				continue
			}
			if len(msgs) == n || err == nil || errors.Is(err, errComeBackLater) || errors.Is(err, errPinLost) || isRequestOver(err) {
				p.put(ib)
			} else {
				p.discard(ib)
			}
			switch {
			case cancelled != nil:
				return msgs, cancelled
			case len(msgs) == n:
				return msgs, nil
			}
			return msgs, err
		case <-timeout.C:
			p.discard(ib)
			if cancelled != nil {
				return msgs, cancelled
			}
			if wait == 0 {
				// A request without an expiry is answered at once, unless
				// the consumer is at MaxAckPending: the server then holds
				// it until a task is settled. Not a failure.
				return msgs, errComeBackLater
			}
			return msgs, fmt.Errorf("no answer to a pull request within %v", wait+time.Second)
		case <-ctxDone:
			// Any short pull (a partition's, or the unkeyed consumer's in
			// a keyed sweep: see keyed.poll) reads its answer to the end.
			if p.group != "" || wait <= sweepWait {
				cancelled, ctxDone = ctx.Err(), nil
				continue
			}
			p.discard(ib)
			return msgs, ctx.Err()
		}
	}
}

// answer takes one message of an answer, and reports whether the request
// is over, with the error that ended it, if any.
//
// A message is a status only where the server can send one: a status
// reply to a pull request has no reply subject, while a stream message
// always has the server's ack subject. So a message with a reply subject
// is a task whatever its headers and body (a producer may publish an
// empty message with a Status header), and a status never ends a request
// unless it comes from the server.
//
// A pinned consumer's message carries the pin this client holds from now
// on; a 423 status says the pin the request carried is stale, and it is
// forgotten (as nats.go does), so that the next request asks afresh.
func (p *puller) answer(m *nats.Msg, msgs *[]*nats.Msg, pin string) (bool, error) {
	if m.Reply != "" {
		if p.group != "" {
			if got := m.Header.Get(headerPinID); got != "" {
				p.setPin(pin, got)
			}
		}
		*msgs = append(*msgs, m)
		return len(*msgs) == cap(*msgs), nil
	}
	switch status := m.Header.Get("Status"); status {
	case "":
		// Neither a stream message nor a status: not from the server
		// (someone published to the inbox). It cannot be settled; drop it.
		return false, nil
	case "100": // idle heartbeat or flow control: the request goes on
		return false, nil
	case "404": // no messages (any more)
		return true, nil
	case "408":
		if len(*msgs) == 0 && m.Header.Get("Description") == "Requests Pending" {
			return true, errComeBackLater
		}
		return true, nil // the request expired
	case "423":
		p.dropPin(pin)
		return true, errPinLost
	case "409":
		if len(*msgs) == 0 && strings.HasPrefix(m.Header.Get("Description"), "Exceeded MaxWaiting") {
			return true, errComeBackLater
		}
		return true, &statusError{status: status, description: m.Header.Get("Description")}
	default:
		return true, &statusError{status: status, description: m.Header.Get("Description")}
	}
}

// statusError is a status the server ended a request with.
type statusError struct{ status, description string }

func (e *statusError) Error() string {
	return fmt.Sprintf("pull request: status %s: %s", e.status, e.description)
}

// isNoResponders reports whether err is the 503 status: no consumer
// took the request (it does not exist).
func isNoResponders(err error) bool {
	var se *statusError
	return errors.As(err, &se) && se.status == "503"
}

// isRequestOver reports whether err is a status that ends a request in an
// orderly way (a 409, such as "Exceeded MaxWaiting").
func isRequestOver(err error) bool {
	var se *statusError
	return errors.As(err, &se) && se.status == "409"
}

func (p *puller) take() (*inbox, error) {
	p.mu.Lock()
	if k := len(p.idle); k > 0 {
		ib := p.idle[k-1]
		p.idle = p.idle[:k-1]
		p.mu.Unlock()
		p.drain(ib)
		return ib, nil
	}
	p.mu.Unlock()
	ib := &inbox{ch: make(chan *nats.Msg, maxPull+16)}
	sub, err := p.nc.ChanSubscribe(p.nc.NewInbox(), ib.ch)
	if err != nil {
		return nil, err
	}
	ib.sub = sub
	return ib, nil
}

// drain empties an inbox: before its next request, where nothing should
// be (an inbox is reused only once its request is over), and when it is
// discarded. A stream message found there (it has a reply subject) was
// delivered outside any poll, holds no slot, and goes straight back to
// the stream, without counting a delivery (see Task.HandBack); statuses
// are dropped.
func (p *puller) drain(ib *inbox) {
	for {
		select {
		case m := <-ib.ch:
			if m.Reply != "" {
				p.stray(m)
			}
		default:
			return
		}
	}
}

// collect reads what an unsubscribed inbox holds into msgs, up to the
// request's n; anything beyond (there should be none) goes back as a
// stray.
func (p *puller) collect(ib *inbox, msgs *[]*nats.Msg, pin string) {
	for {
		select {
		case m := <-ib.ch:
			if len(*msgs) < cap(*msgs) {
				p.answer(m, msgs, pin)
			} else if m.Reply != "" {
				p.stray(m)
			}
		default:
			return
		}
	}
}

func (p *puller) put(ib *inbox) {
	p.mu.Lock()
	p.idle = append(p.idle, ib)
	p.mu.Unlock()
}

// discard drops an inbox whose request may still be answered. Messages
// that came before the unsubscription (say, while a cancelled poll was
// on its way out) go straight back to the server; the few that may be on
// the wire as it happens are dropped, and the server delivers them again
// after AckWait. A partition's pull is not discarded when its poll is
// cancelled (see pull): it waits for the end of its short answer.
func (p *puller) discard(ib *inbox) {
	_ = ib.sub.Unsubscribe() // from here on nothing more lands in ib.ch
	p.drain(ib)
}

// close drops every idle inbox.
func (p *puller) close() {
	p.mu.Lock()
	idle := p.idle
	p.idle = nil
	p.mu.Unlock()
	for _, ib := range idle {
		p.discard(ib)
	}
}
