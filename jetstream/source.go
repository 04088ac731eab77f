package weftjs

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	natsjs "github.com/nats-io/nats.go/jetstream"
	"github.com/weftrt/weft/intake"
)

// Source is an intake.Source over a JetStream work-queue stream and a
// durable pull consumer: a task is a message, its lease the consumer's
// AckWait. Its delivery count is the server's for this copy of the
// message plus those a hand-back carried over (see Task.HandBack and
// HeaderDeliveries). Create one with NewSource; it is safe for concurrent
// use, as the worker's pollers need.
type Source struct {
	js  natsjs.JetStream
	nc  *nats.Conn
	cfg Config

	puller   *puller
	acker    acker
	throttle throttle
	stats    sourceCounters

	mu   sync.Mutex
	cons natsjs.Consumer // nil until bound, and again after a poll failed

	// keyed reads the partitions, with Config.Partitions; nil without.
	keyed *keyed

	// backlog is the consumer's count of messages not yet delivered, as
	// the last message polled reported it (0 after a poll found none).
	backlog atomic.Int64
	// lease is the bound consumer's AckWait, in nanoseconds.
	lease atomic.Int64
	// closed is set by the first Close; the calls that Close makes
	// useless check it first (see ErrClosed).
	closed atomic.Bool
}

var (
	_ intake.Source     = (*Source)(nil)
	_ intake.Leaser     = (*Source)(nil)
	_ intake.Backlogger = (*Source)(nil)
)

// bindTimeout bounds each lookup (or creation) of the stream and the
// consumer. A request sent on a connection that is dying would otherwise
// wait out the client's default timeout (5s) although the connection
// comes back in a fraction of a second; the next try goes out on the new
// one.
const bindTimeout = time.Second

// NewSource binds to the stream and consumer cfg names, creating those
// missing unless cfg.BindOnly, and the dead-letter stream likewise unless
// cfg.NoDeadLetter. Existing ones are used as they are. While the server
// cannot be reached yet (a worker started a moment before it), NewSource
// tries again until ctx ends.
func NewSource(ctx context.Context, js natsjs.JetStream, cfg Config) (*Source, error) {
	if js == nil || js.Conn() == nil {
		return nil, fmt.Errorf("%w: nil JetStream handle (make one with jetstream.New(nc))", ErrConfig)
	}
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	s := &Source{js: js, nc: js.Conn(), cfg: cfg}
	s.acker.nc = s.nc
	s.puller = newPuller(s.nc, cfg.Stream, cfg.Consumer, s.returnStray)
	s.throttle.init(cfg.PollWait)
	s.backlog.Store(-1)
	s.lease.Store(int64(cfg.AckWait))
	if cfg.Partitions > 0 {
		s.keyed = newKeyed(s)
	}
	if err := s.setUp(ctx); err != nil {
		if s.keyed != nil && s.keyed.sink != nil {
			_ = s.keyed.sink.Unsubscribe()
		}
		return nil, err
	}
	if s.keyed != nil {
		s.keyed.start()
	}
	return s, nil
}

// setUp binds the consumer and the dead-letter stream, trying again while
// the failure is one that waiting cures (the server not up yet, a
// connection being made), until ctx ends.
func (s *Source) setUp(ctx context.Context) error {
	for try := 1; ; try++ {
		_, err := s.consumer(ctx)
		if err == nil && s.keyed != nil {
			err = s.keyed.bind(ctx)
		}
		if err == nil && !s.cfg.NoDeadLetter {
			err = s.bindDeadLetter(ctx)
		}
		if err == nil {
			return nil
		}
		if !s.transient(err) {
			return err
		}
		if werr := sleepCtx(ctx, min(50*time.Millisecond<<min(try, 5), time.Second)); werr != nil {
			return fmt.Errorf("%w (gave up waiting for the server: %w)", err, werr)
		}
	}
}

// transient reports whether err may go away by itself: the connection is
// not up (yet, or again), or the server did not answer (JetStream still
// starting).
func (s *Source) transient(err error) bool {
	if s.nc.IsClosed() || errors.Is(err, ErrConfig) {
		return false
	}
	return !s.nc.IsConnected() ||
		errors.Is(err, nats.ErrNoResponders) || errors.Is(err, natsjs.ErrNoStreamResponse) ||
		errors.Is(err, nats.ErrTimeout) || errors.Is(err, context.DeadlineExceeded) ||
		errors.Is(err, nats.ErrReconnectBufExceeded) || errors.Is(err, nats.ErrDisconnected)
}

// consumer returns the bound consumer, binding again if a failed poll
// dropped it (the server may have come back without it). No lock is held
// while it talks to the server: every poller would wait behind a lookup
// stuck on a dying connection. Two pollers that bind at once both look
// up (or create) the same consumer, which is harmless.
func (s *Source) consumer(ctx context.Context) (natsjs.Consumer, error) {
	s.mu.Lock()
	cons := s.cons
	s.mu.Unlock()
	if cons != nil {
		return cons, nil
	}
	bctx, cancel := context.WithTimeout(ctx, bindTimeout)
	defer cancel()
	cons, err := s.bind(bctx)
	if err != nil {
		return nil, fmt.Errorf("weft/jetstream: binding consumer %s on stream %s: %w", s.cfg.Consumer, s.cfg.Stream, err)
	}
	if info := cons.CachedInfo(); info != nil && info.Config.AckWait > 0 {
		s.lease.Store(int64(info.Config.AckWait))
	}
	s.mu.Lock()
	s.cons = cons
	s.mu.Unlock()
	return cons, nil
}

// bind looks the stream and the consumer up, and creates the missing ones
// unless BindOnly. It never updates one that exists: a stream provisioned
// with other settings (more replicas, limits) keeps them, and so does the
// consumer, whose AckWait then becomes the lease.
func (s *Source) bind(ctx context.Context) (natsjs.Consumer, error) {
	if err := s.ensureStream(ctx, s.cfg.streamConfig()); err != nil {
		return nil, err
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

// ensureStream looks a stream up, creating it unless it exists or
// BindOnly.
func (s *Source) ensureStream(ctx context.Context, cfg natsjs.StreamConfig) error {
	st, err := s.js.Stream(ctx, cfg.Name)
	if err == nil {
		if cfg.Name == s.cfg.Stream {
			return s.checkTransform(st.CachedInfo())
		}
		return nil
	}
	if s.cfg.BindOnly || !errors.Is(err, natsjs.ErrStreamNotFound) {
		return err
	}
	_, err = s.js.CreateStream(ctx, cfg)
	if errors.Is(err, natsjs.ErrStreamNameAlreadyInUse) { // lost a race: fine
		return nil
	}
	return err
}

// checkTransform refuses a stream whose keyed tasks would not land in the
// partitions this source reads: one made without Partitions, or with
// another count.
func (s *Source) checkTransform(info *natsjs.StreamInfo) error {
	want := s.cfg.partitionTransform()
	if want == nil || info == nil {
		return nil
	}
	got := info.Config.SubjectTransform
	if got == nil || got.Source != want.Source || got.Destination != want.Destination {
		return fmt.Errorf("%w: stream %s has subject transform %v: Partitions %d needs %s -> %s (a stream made without partitions, or with another count: make a new one, or edit it and every worker's Partitions together)",
			ErrConfig, s.cfg.Stream, got, s.cfg.Partitions, want.Source, want.Destination)
	}
	return nil
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
// are any. With Partitions it sweeps the partitions assigned to this
// worker and the unkeyed consumer instead, asking each in turn for what
// is left of n, until it has tasks or PollWait has passed. A partition is
// not pulled while the worker has not yet Taken every task of its last
// pull (intake.OrderKeeper), so several pollers may poll at once without
// putting a key's tasks out of order. While the connection is down it
// waits for it to come back, up to PollWait, so that polling resumes as
// soon as it does; once the connection is closed for good it fails with
// ErrConnClosed. A poll that fails after it brought tasks (an unkeyed
// pull cut by a dropped connection, a keyed sweep that fails on one
// consumer after others brought tasks) returns the tasks without the
// error, which goes to Config.OnError.
func (s *Source) Poll(ctx context.Context, n int) ([]intake.Task, error) {
	if err := s.open("Poll"); err != nil {
		return nil, err
	}
	if err := s.awaitConnection(ctx); err != nil {
		return nil, err
	}
	cons, err := s.consumer(ctx)
	if err != nil {
		return nil, s.failed(nil, err)
	}
	if s.keyed != nil {
		if err := s.keyed.bind(ctx); err != nil {
			return nil, s.failed(nil, err)
		}
		tasks, err := s.keyed.poll(ctx, n)
		err = s.failed(cons, err)
		if err != nil && len(tasks) > 0 && ctx.Err() == nil {
			// The sweep failed on one consumer after others brought
			// tasks. Returned with the error, they would be handed back,
			// and a keyed task's hand-back is a Nak, which counts a
			// delivery: a consumer that fails every poll would push the
			// other partitions' tasks to MaxDeliveries unrun. They run;
			// the failure is reported, and the next poll asks again.
			s.report(err)
			err = nil
		}
		return tasks, err
	}
	msgs, err := s.puller.pull(ctx, n, s.cfg.PollWait)
	tasks := make([]intake.Task, 0, len(msgs))
	for _, m := range msgs {
		t, terr := s.newTask(m)
		if terr != nil {
			s.setAside(m, terr)
			continue
		}
		s.backlog.Store(int64(t.meta.NumPending))
		tasks = append(tasks, t)
	}
	switch {
	case len(msgs) > 0:
		s.throttle.reset()
	case errors.Is(err, errComeBackLater):
		// The server has messages but will not hand them out now (other
		// requests wait for them, or MaxAckPending is reached): back off,
		// longer each time it says so, rather than ask again at once.
		s.stats.throttled.Add(1)
		pause := s.throttle.next()
		if testHookThrottle != nil {
			testHookThrottle(pause)
		}
		err = sleepCtx(ctx, pause)
	case err == nil:
		s.backlog.Store(0)
	}
	err = s.failed(cons, err)
	if err != nil && len(tasks) > 0 && ctx.Err() == nil {
		// The pull failed after it brought tasks, mostly because the
		// connection dropped. Returned with the error, they would be
		// handed back at once, on a connection that is down: the
		// republish fails, and so does the Nak after it, and they come
		// back after AckWait with a delivery counted that never ran. They
		// run; their settlements go out once the connection is back.
		s.report(err)
		err = nil
	}
	return tasks, err
}

// awaitConnection returns nil once the connection is up, waiting up to
// PollWait (or ctx) while it reconnects, and ErrConnClosed with the cause
// once it is closed for good.
func (s *Source) awaitConnection(ctx context.Context) error {
	if s.nc.IsConnected() {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, s.cfg.PollWait)
	defer cancel()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		switch {
		case s.nc.IsClosed():
			return s.closedErr()
		case s.nc.IsConnected():
			return nil
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
			if s.nc.IsClosed() {
				return s.closedErr()
			}
			return fmt.Errorf("weft/jetstream: not connected to the server (%v): %w", s.nc.Status(), ctx.Err())
		}
	}
}

// closedErr says why the connection is closed for good.
func (s *Source) closedErr() error {
	if last := s.nc.LastError(); last != nil {
		return fmt.Errorf("%w: the client gave up on the server: %w", ErrConnClosed, last)
	}
	return fmt.Errorf("%w: %w (closed by the application or after MaxReconnects)", ErrConnClosed, nats.ErrConnectionClosed)
}

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
	switch {
	case err == nil, errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return err
	case s.nc.IsClosed():
		return s.closedErr()
	case cons == nil: // the binding failed: nothing to drop
		return err
	}
	// The consumer may be gone (a server that came back without it):
	// bind again before the next poll.
	s.unbind(cons)
	return fmt.Errorf("weft/jetstream: pull: %w", err)
}

// Close releases the inboxes the source keeps subscribed between polls
// and the one acks are confirmed on (acks still waiting for their
// confirmation fail). Call it after the worker's Shutdown or Close: from
// then on Poll, Publish and PublishKey fail with ErrClosed. A second
// Close does nothing.
//
// With Partitions it also lets go of the partitions this worker holds,
// so that they move to the others at once, and leaves the member bucket:
// it deletes its entry only if the entry is still the one it put, so that
// a worker restarted under the same MemberID, listed before this Close,
// stays listed.
func (s *Source) Close() {
	if s.closed.Swap(true) {
		return
	}
	if s.keyed != nil {
		s.keyed.close()
		for _, p := range s.keyed.parts[:len(s.keyed.parts)-1] {
			p.puller.close()
		}
	}
	s.puller.close()
	s.acker.close()
}

// open returns nil, or the ErrClosed error for call (a method's name) on
// a closed source.
func (s *Source) open(call string) error {
	if s.closed.Load() {
		return fmt.Errorf("%w: %s on stream %s after Close", ErrClosed, call, s.cfg.Stream)
	}
	return nil
}

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
	if err := s.open("Publish"); err != nil {
		return err
	}
	_, err := s.js.Publish(ctx, s.Subject(), payload)
	return err
}

// Subject is where Publish publishes: the stream's first subject, with a
// trailing wildcard token replaced by "task" ("weft_tasks.>" gives
// "weft_tasks.task"). Config refuses subjects such as "tasks>", where a
// wildcard is not a whole token.
func (s *Source) Subject() string {
	subj := s.cfg.Subjects[0]
	if n := len(subj); n >= 1 && (subj[n-1] == '>' || subj[n-1] == '*') {
		return subj[:n-1] + "task"
	}
	return subj
}

// KeyedPrefix is the subject prefix keyed tasks are published under
// (PublishKeyed, KeyedSubject): "<base>.k" ("weft_tasks.k"), or "" when
// the source has no Partitions.
func (s *Source) KeyedPrefix() string {
	if s.cfg.Partitions == 0 {
		return ""
	}
	return s.cfg.keyedPrefix()
}

// PublishKey adds a task with key to the stream (see PublishKeyed) and
// waits for the server to store it. The source must have Partitions
// (else ErrConfig), and the key must not be empty nor longer than
// MaxKeyLen (else ErrBadKey: a task without a key goes with Publish).
func (s *Source) PublishKey(ctx context.Context, key string, payload []byte) error {
	if err := s.open("PublishKey"); err != nil {
		return err
	}
	if s.cfg.Partitions == 0 {
		return fmt.Errorf("%w: PublishKey on stream %s, which has no Partitions: keyed tasks need Config.Partitions > 0", ErrConfig, s.cfg.Stream)
	}
	_, err := PublishKeyed(ctx, s.js, s.cfg.keyedPrefix(), key, payload)
	return err
}

// OwnedPartitions returns the partitions assigned to this worker now,
// as the member loop last shared them out (nil without Partitions).
func (s *Source) OwnedPartitions() []int {
	if s.keyed == nil {
		return nil
	}
	return s.keyed.ownedNow()
}
