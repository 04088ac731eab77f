package weftjs

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/nats-io/nats.go"
	natsjs "github.com/nats-io/nats.go/jetstream"
)

// republish publishes a copy of t's message to its subject on the
// source's stream, carrying deliveries (HeaderDeliveries) and t's ID,
// and waits for the server to store it.
//
// A task that took up nearly all of max_payload leaves no room for these
// headers: its copy could never be published, and every hand-back of it
// would become a Nak, which counts, until a few restarts had it
// terminated without ever running. So the copy then leaves out what it
// can do without, as Replay does: a count of 0 (no header says the same),
// the check of the stream (checked on the server's answer instead), and,
// at the very limit, the ID (the copy then goes under one of its own).
func (s *Source) republish(ctx context.Context, t *task, deliveries int) error {
	m := nats.NewMsg(t.msg.Subject)
	m.Data = t.msg.Data
	m.Header = copyHeaders(t.msg.Header, false)
	m.Header.Set(HeaderDeliveries, strconv.Itoa(max(deliveries, 0)))
	m.Header.Set(HeaderID, t.id)
	// Set here as well as by the option, so that fits counts it.
	m.Header.Set(natsjs.ExpectedStreamHeader, s.cfg.Stream)
	expect := []natsjs.PublishOpt{natsjs.WithExpectStream(s.cfg.Stream)}
	if limit := int(s.nc.MaxPayload()); !fits(m.Header, m.Data, limit) {
		if deliveries <= 0 {
			m.Header.Del(HeaderDeliveries)
		}
		if !fits(m.Header, m.Data, limit) {
			m.Header.Del(natsjs.ExpectedStreamHeader)
			expect = nil
		}
		if !fits(m.Header, m.Data, limit) {
			m.Header.Del(HeaderID)
		}
	}
	ack, err := s.js.PublishMsg(ctx, m, expect...)
	if err == nil && ack.Stream != s.cfg.Stream {
		err = fmt.Errorf("stored on stream %s, which now holds the subject", ack.Stream)
	}
	if err != nil {
		return fmt.Errorf("republishing to %s on stream %s: %w", m.Subject, s.cfg.Stream, err)
	}
	return nil
}

// strayTimeout bounds the hand-back of a message that reached an inbox
// outside any poll.
const strayTimeout = 2 * time.Second

// returnStray hands back a stream message that was delivered outside any
// poll (after its poll was cancelled): it never ran.
func (s *Source) returnStray(m *nats.Msg) {
	t, err := s.newTask(m)
	if err != nil {
		s.setAside(m, err)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), strayTimeout)
	defer cancel()
	if err := t.HandBack(ctx); err != nil {
		s.report(err)
	}
}

// setAside reports a message that reached a poll and cannot be a task:
// it has a reply subject but no JetStream metadata, so it is not from the
// stream (someone published it to the poll's inbox), and it cannot be
// settled. It is never run and never affects the tasks around it.
func (s *Source) setAside(m *nats.Msg, why error) {
	s.stats.setAside.Add(1)
	s.report(fmt.Errorf("weft/jetstream: message on %q (reply %q) set aside, not a task: %w", m.Subject, m.Reply, why))
}

// report passes an error the source handled to Config.OnError.
func (s *Source) report(err error) {
	if f := s.cfg.OnError; f != nil && err != nil {
		f(err)
	}
}
