package weftjs

import (
	"context"
	"errors"
	"fmt"
	"math"
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
//
// A task that fits the server's max_payload may not fit it once the
// Weft-Dead-* headers are added (a payload within a kilobyte or so of the
// limit). Its record then keeps the headers and no payload, and names
// (HeaderDeadParts) the part records, published before it, that hold the
// payload in pieces. The record is published last, so that it exists only
// once all of its parts do; Replay joins the parts again. A task whose
// own headers leave no room for the Weft-Dead-* ones cannot be stored in
// any form: Terminate then fails with ErrRecordTooLarge, and the task is
// kept.

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

// storeDeadLetter is deadLetter, making the dead-letter stream again
// (unless BindOnly) if it was deleted since the source bound it, and
// then trying once more: with no stream to store its record, no task
// could be terminated, and each would come back after every AckWait until
// the server's MaxDeliver left it in the work stream for good.
func (s *Source) storeDeadLetter(ctx context.Context, t *task, reason string) error {
	err := s.deadLetter(ctx, t, reason)
	if !errors.Is(err, natsjs.ErrNoStreamResponse) || s.cfg.BindOnly {
		return err
	}
	if berr := s.bindDeadLetter(ctx); berr != nil {
		return fmt.Errorf("%w (and making the stream again failed: %w)", err, berr)
	}
	return s.deadLetter(ctx, t, reason)
}

// deadLetter stores t in the dead-letter stream with the reason it is
// terminated, and waits for the server to confirm it. The record's
// Nats-Msg-Id is the terminated message's stream and sequence (and its
// parts', that and the part's number), so that a terminate that is tried
// again (its +TERM failed) within the stream's duplicate window stores
// one record, not two: the server answers a duplicate with the sequence
// of the first.
func (s *Source) deadLetter(ctx context.Context, t *task, reason string) error {
	seq := strconv.FormatUint(t.meta.Sequence.Stream, 10)
	m := nats.NewMsg(s.cfg.DeadLetterSubject)
	m.Data = t.msg.Data
	m.Header = copyHeaders(t.msg.Header, true)
	m.Header.Set(HeaderID, t.id)
	m.Header.Set(HeaderDeadReason, reason)
	m.Header.Set(HeaderDeadDeliveries, strconv.Itoa(t.Deliveries()))
	m.Header.Set(HeaderDeadStream, s.cfg.Stream)
	m.Header.Set(HeaderDeadSubject, t.msg.Subject)
	m.Header.Set(HeaderDeadSequence, seq)
	m.Header.Set(HeaderDeadTime, time.Now().UTC().Format(time.RFC3339Nano))
	// The time the message was stored is in the ID as well: a stream
	// deleted and made again starts its sequences over, and the record of
	// another message with the same sequence, within the duplicate window,
	// would be taken for this one's (the +TERM then deleting the task
	// with no record of it).
	m.Header.Set(nats.MsgIdHdr, deadRecordID(s.cfg.Stream, seq)+":"+strconv.FormatInt(t.meta.Timestamp.UnixNano(), 10))
	// Set here as well as by the option, so that wireSize counts it.
	m.Header.Set(natsjs.ExpectedStreamHeader, s.cfg.DeadLetterStream)

	limit := int(s.nc.MaxPayload())
	hdr := wireSize(m.Header, nil)
	if hdr > maxHeaderBlock {
		return fmt.Errorf("%w: the task's headers and the dead-letter headers take %d bytes, and JetStream stores at most %d bytes of headers with a message",
			ErrRecordTooLarge, hdr, maxHeaderBlock)
	}
	if hdr+len(m.Data) > limit {
		// The headers go on a record without the payload, which goes into
		// parts; the list of the parts adds at most maxPartsValue to it.
		room := min(limit, maxHeaderBlock) - hdr - len(HeaderDeadParts) - len(": \r\n")
		size := s.partSize(m.Header.Get(nats.MsgIdHdr), limit)
		if size == 0 || room < maxPartsValue(len(m.Data), size) {
			return fmt.Errorf("%w: the task's headers and the dead-letter headers take %d bytes, the payload %d, of the server's max_payload of %d",
				ErrRecordTooLarge, hdr, len(m.Data), limit)
		}
		parts, err := s.deadLetterParts(ctx, t.msg.Subject, m.Header.Get(nats.MsgIdHdr), m.Data, size)
		if err != nil {
			return err
		}
		m.Data = nil
		m.Header.Set(HeaderDeadParts, parts)
	}
	if _, err := s.js.PublishMsg(ctx, m, natsjs.WithExpectStream(s.cfg.DeadLetterStream)); err != nil {
		return fmt.Errorf("publishing to %s on stream %s: %w", s.cfg.DeadLetterSubject, s.cfg.DeadLetterStream, err)
	}
	// Not counted here but by Terminate, once the +TERM is confirmed: a
	// +TERM that fails keeps the task, which is dead-lettered again later
	// (a duplicate of this record), and would be counted twice.
	return nil
}

// deadRecordID is the start of the Nats-Msg-Id of the record of the
// message seq of stream (the record's ID, HeaderDeadPartOf of its parts,
// adds the time the message was stored; records written before it did
// not).
func deadRecordID(stream, seq string) string { return "weft-dead:" + stream + ":" + seq }

// deadLetterParts stores data in part records of size bytes (the last
// one less), and returns their sequences in the dead-letter stream, in
// order, comma-separated: the value of the record's HeaderDeadParts.
func (s *Source) deadLetterParts(ctx context.Context, subject, recordID string, data []byte, size int) (string, error) {
	var seqs []byte
	for i := 0; len(data) > 0; i++ {
		chunk := data[:min(size, len(data))]
		data = data[len(chunk):]
		p := nats.NewMsg(s.cfg.DeadLetterSubject)
		p.Data = chunk
		p.Header = s.partHeader(recordID, i)
		ack, err := s.js.PublishMsg(ctx, p, natsjs.WithExpectStream(s.cfg.DeadLetterStream))
		if err != nil {
			return "", fmt.Errorf("publishing part %d of the record of %s to %s on stream %s: %w", i, subject, s.cfg.DeadLetterSubject, s.cfg.DeadLetterStream, err)
		}
		if i > 0 {
			seqs = append(seqs, ',')
		}
		seqs = strconv.AppendUint(seqs, ack.Sequence, 10)
	}
	return string(seqs), nil
}

// partHeader is the headers of part i of the record recordID.
func (s *Source) partHeader(recordID string, i int) nats.Header {
	return nats.Header{
		HeaderDeadPartOf:            {recordID},
		HeaderDeadPart:              {strconv.Itoa(i)},
		nats.MsgIdHdr:               {recordID + ":" + strconv.Itoa(i)},
		natsjs.ExpectedStreamHeader: {s.cfg.DeadLetterStream},
	}
}

// partSize is how much payload fits in a part of recordID, its headers
// counted with a part number longer than any there can be, or 0 if too
// little does to be worth it.
func (s *Source) partSize(recordID string, limit int) int {
	size := limit - wireSize(s.partHeader(recordID, math.MaxInt32), nil)
	if size < minPart {
		return 0
	}
	return size
}

// minPart is the smallest part worth storing: below it, a server's
// max_payload is too small for its task's payload to be dead-lettered.
const minPart = 256

// maxPartsValue bounds the length of HeaderDeadParts for a payload of n
// bytes in parts of size: a sequence of up to 20 digits and a comma per
// part.
func maxPartsValue(n, size int) int { return (n/size + 1) * 21 }
