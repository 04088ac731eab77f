package jetstream

import (
	"context"
	"errors"
	"fmt"

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
// left where they are. `weftjs replay` calls it.
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
		m.Header = copyHeaders(raw.Header, true)
		m.Header.Del(HeaderDeliveries) // a fresh set of attempts
		if _, err := js.PublishMsg(ctx, m, natsjs.WithExpectStream(cfg.Stream)); err != nil {
			return done, fmt.Errorf("weft/jetstream: replay: publishing record %d to %s on stream %s: %w", seq, subj, cfg.Stream, err)
		}
		if err := dead.DeleteMsg(ctx, seq); err != nil {
			return done + 1, fmt.Errorf("weft/jetstream: replay: record %d replayed, but deleting it from %s failed (it may be replayed again): %w", seq, cfg.DeadLetterStream, err)
		}
		done++
	}
	return done, nil
}
