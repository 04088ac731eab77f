package jetstream

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/nats-io/nats.go"
	natsjs "github.com/nats-io/nats.go/jetstream"
)

// The dead-letter stream keeps each task the worker gives up on (it
// failed MaxDeliveries times, or its handler said it is poison): its
// payload, its headers and the Weft-Dead-* headers (reason, deliveries,
// where it was). "At least once" then never quietly becomes "at most N
// times, then nowhere": Replay, or `weftjs replay`, puts the tasks back.

// bindDeadLetter looks the dead-letter stream up, creating it unless it
// exists or BindOnly.
func (s *Source) bindDeadLetter(ctx context.Context) error {
	bctx, cancel := context.WithTimeout(ctx, bindTimeout)
	defer cancel()
	if err := s.ensureStream(bctx, s.cfg.deadLetterStreamConfig()); err != nil {
		return fmt.Errorf("weft/jetstream: binding dead-letter stream %s (set Config.NoDeadLetter to do without): %w", s.cfg.DeadLetterStream, err)
	}
	return nil
}

// deadLetter stores t in the dead-letter stream with the reason it is
// terminated, and waits for the server to confirm it. The record's
// Nats-Msg-Id is the terminated message's stream and sequence, so that a
// terminate that is tried again (its +TERM failed) within the stream's
// duplicate window stores one record, not two.
func (s *Source) deadLetter(ctx context.Context, t *task, reason string) error {
	m := nats.NewMsg(s.cfg.DeadLetterSubject)
	m.Data = t.msg.Data
	m.Header = copyHeaders(t.msg.Header, true)
	m.Header.Set(HeaderID, t.id)
	m.Header.Set(HeaderDeadReason, reason)
	m.Header.Set(HeaderDeadDeliveries, strconv.Itoa(t.Deliveries()))
	m.Header.Set(HeaderDeadStream, s.cfg.Stream)
	m.Header.Set(HeaderDeadSubject, t.msg.Subject)
	m.Header.Set(HeaderDeadSequence, strconv.FormatUint(t.meta.Sequence.Stream, 10))
	m.Header.Set(HeaderDeadTime, time.Now().UTC().Format(time.RFC3339Nano))
	m.Header.Set(nats.MsgIdHdr, fmt.Sprintf("weft-dead:%s:%d", s.cfg.Stream, t.meta.Sequence.Stream))
	if _, err := s.js.PublishMsg(ctx, m, natsjs.WithExpectStream(s.cfg.DeadLetterStream)); err != nil {
		return fmt.Errorf("publishing to %s on stream %s: %w", s.cfg.DeadLetterSubject, s.cfg.DeadLetterStream, err)
	}
	s.stats.deadLettered.Add(1)
	return nil
}
