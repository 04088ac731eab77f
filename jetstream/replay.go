package weftjs

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/nats-io/nats.go"
	natsjs "github.com/nats-io/nats.go/jetstream"
)

// Replay puts tasks from the dead-letter stream back on the stream they
// were terminated from, oldest first, at most limit of them (0: all), and
// returns how many it put back. Each goes back to the subject it was
// published on, with its payload and its own headers, the Weft-Dead-*
// headers dropped and its delivery count started over; it is deleted
// from the dead-letter stream once the server has stored the copy (a
// failure between the two leaves both: replayed twice, never lost).
// Records of other streams (a dead-letter stream shared by several) are
// left where they are. A record stored in parts (HeaderDeadParts) is
// joined again, and its parts deleted with it; parts count as no tasks
// of their own. A task that took up nearly all of max_payload when it was
// published goes back without the headers the record added, its ID among
// them, so that it fits again. `weftjs replay` calls it.
func Replay(ctx context.Context, js natsjs.JetStream, cfg Config, limit int) (int, error) {
	if js == nil {
		return 0, fmt.Errorf("%w: nil JetStream handle", ErrConfig)
	}
	if limit < 0 {
		return 0, fmt.Errorf("%w: replay limit %d: want >= 0 (0: all)", ErrConfig, limit)
	}
	cfg, err := cfg.withDefaults()
	if err != nil {
		return 0, err
	}
	dead, err := js.Stream(ctx, cfg.DeadLetterStream)
	if err != nil {
		return 0, fmt.Errorf("weft/jetstream: replay: dead-letter stream %s: %w", cfg.DeadLetterStream, err)
	}
	info, err := dead.Info(ctx)
	if err != nil {
		return 0, fmt.Errorf("weft/jetstream: replay: dead-letter stream %s: %w", cfg.DeadLetterStream, err)
	}
	done := 0
	for seq := info.State.FirstSeq; seq <= info.State.LastSeq && (limit == 0 || done < limit); seq++ {
		raw, err := dead.GetMsg(ctx, seq)
		if errors.Is(err, natsjs.ErrMsgNotFound) {
			continue // deleted: a gap
		}
		if err != nil {
			return done, fmt.Errorf("weft/jetstream: replay: reading record %d of %s: %w", seq, cfg.DeadLetterStream, err)
		}
		if raw.Header.Get(HeaderDeadStream) != cfg.Stream {
			continue
		}
		subj := raw.Header.Get(HeaderDeadSubject)
		if subj == "" {
			return done, fmt.Errorf("weft/jetstream: replay: record %d of %s has no %s header: not a dead-letter record", seq, cfg.DeadLetterStream, HeaderDeadSubject)
		}
		m := nats.NewMsg(subj)
		m.Data = raw.Data
		var parts []uint64
		if list := raw.Header.Get(HeaderDeadParts); list != "" {
			if m.Data, parts, err = joinParts(ctx, dead, raw.Header, list); err != nil {
				return done, fmt.Errorf("weft/jetstream: replay: record %d of %s: %w", seq, cfg.DeadLetterStream, err)
			}
		}
		m.Header = copyHeaders(raw.Header, true)
		m.Header.Del(HeaderDeliveries) // a fresh set of attempts
		// Set here as well as by the option, so that fits counts it.
		m.Header.Set(natsjs.ExpectedStreamHeader, cfg.Stream)
		expect := []natsjs.PublishOpt{natsjs.WithExpectStream(cfg.Stream)}
		// The copy's Nats-Msg-Id names this record (its place in the
		// dead-letter stream and the message it was made of), so that a
		// replay that publishes it again within the stream's duplicate
		// window (a replay running at the same time, one run again after
		// its delete failed) stores it once.
		m.Header.Set(nats.MsgIdHdr, replayID(cfg.DeadLetterStream, seq, raw.Header))
		if limit := int(js.Conn().MaxPayload()); !fits(m.Header, m.Data, limit) {
			// A task that took up nearly all of max_payload when it was
			// published: the headers it may not have had then (its ID,
			// which the dead-letter record adds, the check of the stream,
			// the replay's own ID) go, and it fits as it did then, under
			// an ID of its own. The stream it went to is checked
			// afterwards instead.
			m.Header.Del(HeaderID)
			if !fits(m.Header, m.Data, limit) {
				m.Header.Del(natsjs.ExpectedStreamHeader)
				expect = nil
			}
			if !fits(m.Header, m.Data, limit) {
				m.Header.Del(nats.MsgIdHdr)
			}
		}
		ack, err := js.PublishMsg(ctx, m, expect...)
		if err == nil && ack.Stream != cfg.Stream {
			err = fmt.Errorf("stored on stream %s, which now holds the subject (the record is kept)", ack.Stream)
		}
		if err != nil {
			return done, fmt.Errorf("weft/jetstream: replay: publishing record %d to %s on stream %s: %w", seq, subj, cfg.Stream, err)
		}
		// The record before its parts: a part left behind is garbage that
		// no record names, while a record whose parts were gone could not
		// be replayed.
		for _, del := range append([]uint64{seq}, parts...) {
			if err := dead.DeleteMsg(ctx, del); err != nil && !gone(ctx, dead, del) {
				if !ack.Duplicate {
					done++
				}
				return done, fmt.Errorf("weft/jetstream: replay: record %d replayed, but deleting record %d from %s failed (it may be replayed again): %w", seq, del, cfg.DeadLetterStream, err)
			}
		}
		if !ack.Duplicate { // else another replay put it back
			done++
		}
	}
	return done, nil
}

// replayID is the Nats-Msg-Id of the replayed copy of record seq of the
// dead-letter stream dead, whose headers are h: the record's place, and
// the message it was made of (its stream, sequence and termination
// time), so that a record of a dead-letter stream made again under the
// same name does not pass for another.
func replayID(dead string, seq uint64, h nats.Header) string {
	return "weft-replay:" + dead + ":" + strconv.FormatUint(seq, 10) + ":" +
		deadRecordID(h.Get(HeaderDeadStream), h.Get(HeaderDeadSequence)) + ":" + h.Get(HeaderDeadTime)
}

// gone reports whether record seq is no longer in the dead-letter stream
// (the server answers the delete of a missing message with an error of
// its own, not ErrMsgNotFound).
func gone(ctx context.Context, dead natsjs.Stream, seq uint64) bool {
	_, err := dead.GetMsg(ctx, seq)
	return errors.Is(err, natsjs.ErrMsgNotFound)
}

// joinParts reads the parts that list (a record's HeaderDeadParts) names
// and returns their payloads joined, and their sequences. Each must be
// the part of this record (HeaderDeadPartOf) in its place (HeaderDeadPart).
func joinParts(ctx context.Context, dead natsjs.Stream, h nats.Header, list string) ([]byte, []uint64, error) {
	id := h.Get(nats.MsgIdHdr) // the record's ID, which its parts carry
	if id == "" {
		id = deadRecordID(h.Get(HeaderDeadStream), h.Get(HeaderDeadSequence))
	}
	var data []byte
	var seqs []uint64
	for i, tok := range strings.Split(list, ",") {
		seq, err := strconv.ParseUint(tok, 10, 64)
		if err != nil {
			return nil, nil, fmt.Errorf("%s %q: %w", HeaderDeadParts, list, err)
		}
		part, err := dead.GetMsg(ctx, seq)
		if err != nil {
			return nil, nil, fmt.Errorf("reading its part %d (record %d): %w", i, seq, err)
		}
		if part.Header.Get(HeaderDeadPartOf) != id || part.Header.Get(HeaderDeadPart) != strconv.Itoa(i) {
			return nil, nil, fmt.Errorf("record %d is not its part %d (%s %q, %s %q)", seq, i,
				HeaderDeadPartOf, part.Header.Get(HeaderDeadPartOf), HeaderDeadPart, part.Header.Get(HeaderDeadPart))
		}
		data = append(data, part.Data...)
		seqs = append(seqs, seq)
	}
	return data, seqs, nil
}
