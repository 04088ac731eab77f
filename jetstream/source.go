package jetstream

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	natsjs "github.com/nats-io/nats.go/jetstream"
	"github.com/weftrt/weft/intake"
)

// Source is an intake.Source over a JetStream work-queue stream and a
// durable pull consumer: a task is a message, its lease the consumer's
// AckWait, its delivery count the server's. Create one with NewSource; it
// is safe for concurrent use, as the worker's pollers need.
type Source struct {
	js  natsjs.JetStream
	cfg Config

	puller *puller

	mu   sync.Mutex
	cons natsjs.Consumer // nil until bound, and again after a poll failed

	// backlog is the consumer's count of messages not yet delivered, as
	// the last message polled reported it (0 after a poll found none).
	backlog atomic.Int64
	// lease is the bound consumer's AckWait, in nanoseconds.
	lease atomic.Int64
}

var (
	_ intake.Source     = (*Source)(nil)
	_ intake.Leaser     = (*Source)(nil)
	_ intake.Backlogger = (*Source)(nil)
)

// NewSource binds to the stream and consumer cfg names, creating those
// missing unless cfg.BindOnly. Existing ones are used as they are.
func NewSource(ctx context.Context, js natsjs.JetStream, cfg Config) (*Source, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	s := &Source{js: js, cfg: cfg, puller: newPuller(js.Conn(), cfg.Stream, cfg.Consumer)}
	s.backlog.Store(-1)
	s.lease.Store(int64(cfg.AckWait))
	if _, err := s.consumer(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

// consumer returns the bound consumer, binding again if a failed poll
// dropped it (the server may have come back without it).
func (s *Source) consumer(ctx context.Context) (natsjs.Consumer, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cons != nil {
		return s.cons, nil
	}
	cons, err := s.bind(ctx)
	if err != nil {
		return nil, fmt.Errorf("weft/jetstream: binding consumer %s on stream %s: %w", s.cfg.Consumer, s.cfg.Stream, err)
	}
	if info := cons.CachedInfo(); info != nil && info.Config.AckWait > 0 {
		s.lease.Store(int64(info.Config.AckWait))
	}
	s.cons = cons
	return cons, nil
}

// bind looks the stream and the consumer up, and creates the missing ones
// unless BindOnly. It never updates one that exists: a stream provisioned
// with other settings (more replicas, limits) keeps them, and so does the
// consumer, whose AckWait then becomes the lease.
func (s *Source) bind(ctx context.Context) (natsjs.Consumer, error) {
	if _, err := s.js.Stream(ctx, s.cfg.Stream); err != nil {
		if s.cfg.BindOnly || !errors.Is(err, natsjs.ErrStreamNotFound) {
			return nil, err
		}
		_, err = s.js.CreateStream(ctx, s.cfg.streamConfig())
		if err != nil && !errors.Is(err, natsjs.ErrStreamNameAlreadyInUse) { // lost a race: fine
			return nil, err
		}
	}
	cons, err := s.js.Consumer(ctx, s.cfg.Stream, s.cfg.Consumer)
	if err == nil || s.cfg.BindOnly || !errors.Is(err, natsjs.ErrConsumerNotFound) {
		return cons, err
	}
	cons, err = s.js.CreateConsumer(ctx, s.cfg.Stream, s.cfg.consumerConfig())
	if errors.Is(err, natsjs.ErrConsumerExists) { // another process won the race
		return s.js.Consumer(ctx, s.cfg.Stream, s.cfg.Consumer)
	}
	return cons, err
}

// unbind forgets the consumer after a failure, so that the next poll
// looks it up (or creates it) again.
func (s *Source) unbind(cons natsjs.Consumer) {
	s.mu.Lock()
	if s.cons == cons {
		s.cons = nil
	}
	s.mu.Unlock()
}

// Poll asks the consumer for up to n messages with one pull request,
// which waits up to PollWait for the first and returns as soon as there
// are any.
func (s *Source) Poll(ctx context.Context, n int) ([]intake.Task, error) {
	cons, err := s.consumer(ctx)
	if err != nil {
		return nil, err
	}
	msgs, err := s.puller.pull(ctx, n, s.cfg.PollWait)
	tasks := make([]intake.Task, 0, len(msgs))
	for _, m := range msgs {
		t, terr := newTask(m)
		if terr != nil {
			// Without metadata the message cannot be settled; the server
			// delivers it again after AckWait.
			continue
		}
		s.backlog.Store(int64(t.meta.NumPending))
		tasks = append(tasks, t)
	}
	switch {
	case errors.Is(err, errPending):
		// Other requests wait for the messages there are: let them take
		// them rather than ask again at once.
		err = sleepCtx(ctx, pendingPause)
	case err == nil && len(msgs) == 0:
		s.backlog.Store(0)
	}
	return tasks, s.failed(cons, err)
}

// pendingPause is how long a poll answered "requests pending" waits.
const pendingPause = 5 * time.Millisecond

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// failed passes err on, dropping the binding when the error may mean the
// consumer is gone.
func (s *Source) failed(cons natsjs.Consumer, err error) error {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	// The consumer may be gone (a server that came back without it):
	// bind again before the next poll.
	s.unbind(cons)
	return fmt.Errorf("weft/jetstream: pull: %w", err)
}

// Close releases the inboxes the source keeps subscribed between polls.
// Call it after the worker's Shutdown or Close; the source is not usable
// afterwards.
func (s *Source) Close() { s.puller.close() }

// Lease returns the consumer's AckWait (as the server has it, which is
// Config.AckWait unless the consumer existed before).
func (s *Source) Lease() time.Duration { return time.Duration(s.lease.Load()) }

// Backlog returns the messages not yet delivered, as of the last poll,
// or -1 before the first.
func (s *Source) Backlog() int64 { return s.backlog.Load() }

// JetStream returns the JetStream context the source reads through.
func (s *Source) JetStream() natsjs.JetStream { return s.js }

// Config returns the source's configuration, defaults filled in.
func (s *Source) Config() Config { return s.cfg }

// Publish adds a task to the stream, on Subject, and waits for the
// server to store it.
func (s *Source) Publish(ctx context.Context, payload []byte) error {
	_, err := s.js.Publish(ctx, s.Subject(), payload)
	return err
}

// Subject is where Publish publishes: the stream's first subject, with a
// trailing wildcard replaced by "task".
func (s *Source) Subject() string {
	subj := s.cfg.Subjects[0]
	if n := len(subj); n >= 1 && (subj[n-1] == '>' || subj[n-1] == '*') {
		return subj[:n-1] + "task"
	}
	return subj
}
