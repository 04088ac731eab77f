package weftjs

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	natsjs "github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nuid"
)

// partition is one consumer a keyed source reads: a partition's, pinned
// to one worker at a time, or (index -1) the unkeyed tasks', shared.
type partition struct {
	index    int
	consumer string
	puller   *puller

	// Guarded by keyed.mu.
	owned bool // this worker is assigned the partition (always, for the unkeyed one)
	// busy is set while a pull is in flight and, after it, until the
	// worker has Taken every task the pull brought (entering counts
	// those not yet Taken): no other poll pulls the partition in that
	// time, so a key's tasks enter the worker's key lines in delivery
	// order even when several pollers poll at once.
	busy     bool
	entering int
	// drainedAt is when the last pull found the consumer empty (it
	// brought no message, or its last message said none was pending);
	// zero if it did not. For a while after that (skipFor), the first
	// pass of a poll's sweep skips the partition: a request to an empty
	// consumer is a wasted round trip, which on a run over many
	// partitions was three in ten of all pulls. The patient pass, which
	// waits, asks it anyway, and so does any poll once the while has
	// passed, so that new tasks on a partition that was empty wait at
	// most drainedMax behind busy ones.
	drainedAt time.Time
	// emptyPulls counts the pulls in a row that brought nothing. Each
	// doubles the skip: a consumer that stays empty while others are busy
	// (the unkeyed one where every task has a key, a partition whose keys
	// are done) was asked every drainedFor before, which on a keyed run
	// was one pull in eleven, each a round trip that a poller waited out.
	emptyPulls int
	// throttle backs off a consumer the server answers "come back later"
	// (see throttle), as the unkeyed poll does, but for this consumer
	// alone: a partition at MaxAckPending must not hold back the sweep of
	// the others. No poll pulls it before throttledUntil.
	throttle       throttle
	throttledUntil time.Time
	held           int // tasks polled from it and not settled
	// full says the consumer's last answer stopped short while messages
	// were left (or the server held the request, or said come back
	// later): it is at MaxAckPending, most likely. A request without an
	// expiry would then wait unanswered until a task is settled, so the
	// first pass asks it with sweepWait instead (see keyed.poll) until an
	// answer shows the consumer drained.
	full bool
	// returned holds the messages handed back unrun. They are Nak'd
	// together, in stream order, once the partition holds nothing else
	// (held == 0, no pull in flight), and it is not pulled until then:
	// the server redelivers Nak'd messages before new ones, in the order
	// of the Naks, so a key's returned tasks run again first, in order. A
	// republish (the unkeyed hand-back) would put them behind the key's
	// later tasks.
	returned []*nats.Msg
	// naking counts the Naks sent and not yet confirmed by the server;
	// the partition is not pulled (nor let go of) until they all are. The
	// server takes a consumer's acks in on another goroutine than its
	// pull requests, so a pull sent after a Nak may be served before the
	// Nak is taken in, and bring the key's next task before the returned
	// one.
	naking int
}

// keyed is the part of a Source that reads the partitions (see
// docs/jetstream.md, Keyed tasks).
type keyed struct {
	s     *Source
	parts []*partition // the partitions by index, then the unkeyed one
	byCon map[string]*partition

	mu      sync.Mutex
	next    int           // where the next poll starts its sweep
	changed chan struct{} // closed, and replaced, when a partition may have become pollable
	bound   bool          // the partitions' consumers are known to exist
	nakErrs []error       // Naks that failed under mu, to report once it is let go (unlock)
	toNak   []pendingNak  // Naks to send once mu is let go (unlock), in order
	owned   []int         // the partitions assigned to this worker, as last told to OnPartitions

	kv     natsjs.KeyValue
	bucket natsjs.Stream // the member bucket's stream, which members reads
	stream natsjs.Stream
	// Used by the member loop only. rev is the revision of this worker's
	// last entry in the member bucket; listed, the members it last
	// listed. When a write finds that entry gone, the bucket was most
	// likely made anew (a memory bucket does not survive a server restart, and the
	// server forgets the pins with it): the others may not have listed
	// themselves again yet, and nothing holds their partitions for them
	// any more. So until refill, PinnedTTL later, the members listed
	// before (kept) count too, as their pins would have (see renew).
	rev    uint64
	listed []string
	kept   []string
	refill time.Time
	// unboundSince is when the member loop's binds began to fail; zero
	// while bound.
	unboundSince time.Time
	id           string
	sink         *nats.Subscription // answers to keep-alives

	// pinsOwned says that keepPins renews the pins of the partitions
	// assigned to this worker, not only of those it holds tasks of: false
	// while it cannot bind (see refresh). Guarded by mu.
	pinsOwned bool

	kick      chan struct{}
	stop      chan struct{}
	done      chan struct{}
	pinsDone  chan struct{}
	closeOnce sync.Once
}

// sweepWait is the expiry of the pull request a poll sends to each
// partition in turn: short, so that a sweep over empty partitions moves
// on soon, but a request, so that the server answers at once when a
// message comes within it.
const sweepWait = 10 * time.Millisecond

// drainedFor is how long a poll's first pass skips a partition found
// empty (see partition.drainedAt): about a round trip's worth of polls.
// drainedMax bounds the skip after empty pulls in a row.
const (
	drainedFor = 2 * time.Millisecond
	drainedMax = 16 * time.Millisecond
)

// skipFor is how long after drainedAt the first pass skips p.
func (p *partition) skipFor() time.Duration {
	return min(drainedFor<<min(p.emptyPulls, 4), drainedMax)
}

func newKeyed(s *Source) *keyed {
	cfg := s.cfg
	k := &keyed{
		s: s, byCon: map[string]*partition{}, changed: make(chan struct{}),
		id: cfg.MemberID, pinsOwned: true,
		kick: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{}),
		pinsDone: make(chan struct{}),
	}
	if k.id == "" {
		k.id = nuid.Next()
	}
	for i := range cfg.Partitions {
		name := cfg.partitionConsumerConfig(i).Durable
		pl := newPuller(s.nc, cfg.Stream, name, s.returnStray)
		pl.group = pinGroup
		k.parts = append(k.parts, &partition{index: i, consumer: name, puller: pl})
	}
	k.parts = append(k.parts, &partition{index: -1, consumer: cfg.Consumer, puller: s.puller, owned: true})
	for _, p := range k.parts {
		k.byCon[p.consumer] = p
		p.throttle.init(cfg.PollWait)
	}
	return k
}

// bind makes sure the partitions' consumers, the member bucket and the
// keep-alive inbox exist.
func (k *keyed) bind(ctx context.Context) error {
	k.mu.Lock()
	bound := k.bound
	k.mu.Unlock()
	if bound {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, 2*bindTimeout)
	defer cancel()
	cfg := k.s.cfg
	for i := range cfg.Partitions {
		if err := k.ensureConsumer(ctx, cfg.partitionConsumerConfig(i)); err != nil {
			return fmt.Errorf("weft/jetstream: binding partition consumer %s_p%d on stream %s: %w", cfg.Consumer, i, cfg.Stream, err)
		}
	}
	if k.stream == nil {
		st, err := k.s.js.Stream(ctx, cfg.Stream)
		if err != nil {
			return err
		}
		k.stream = st
	}
	if k.kv == nil {
		kv, err := k.s.js.KeyValue(ctx, cfg.MemberBucket)
		if errors.Is(err, natsjs.ErrBucketNotFound) && !cfg.BindOnly {
			kv, err = k.createBucket(ctx)
		}
		if err != nil {
			return fmt.Errorf("weft/jetstream: member bucket %s: %w", cfg.MemberBucket, err)
		}
		k.kv = kv
	}
	if k.bucket == nil {
		st, err := k.s.js.Stream(ctx, bucketStream(cfg.MemberBucket))
		if err != nil {
			return fmt.Errorf("weft/jetstream: member bucket %s: %w", cfg.MemberBucket, err)
		}
		k.bucket = st
	}
	if k.sink == nil {
		inbox := k.s.nc.NewInbox()
		sub, err := k.s.nc.Subscribe(inbox+".>", func(m *nats.Msg) { k.keptAlive(inbox, m) })
		if err != nil {
			return err
		}
		k.sink = sub
	}
	k.mu.Lock()
	k.bound = true
	k.mu.Unlock()
	return nil
}

func (k *keyed) ensureConsumer(ctx context.Context, cc natsjs.ConsumerConfig) error {
	_, err := k.s.js.Consumer(ctx, k.s.cfg.Stream, cc.Durable)
	if err == nil || k.s.cfg.BindOnly || !errors.Is(err, natsjs.ErrConsumerNotFound) {
		return err
	}
	_, err = k.s.js.CreateConsumer(ctx, k.s.cfg.Stream, cc)
	if errors.Is(err, natsjs.ErrConsumerExists) {
		return nil
	}
	return err
}

// start runs the member loop, which lists this worker in the member
// bucket and shares the partitions out, and the pin loop, which keeps the
// pins it holds alive.
func (k *keyed) start() {
	go k.run()
	go k.keepPins()
}

func (k *keyed) unbind() {
	k.mu.Lock()
	k.bound = false
	k.mu.Unlock()
}

// owned returns the partitions assigned to this worker now.
func (k *keyed) ownedNow() []int {
	k.mu.Lock()
	defer k.mu.Unlock()
	return slices.Clone(k.owned)
}

// close stops the member loop, Naks what was handed back, lets go of the
// pins (so that the partitions move at once, not after PinnedTTL) and
// removes this worker from the member bucket. The worker must be shut
// down first: a pin let go while its tasks run would let another worker
// run their keys' next tasks.
func (k *keyed) close() {
	k.closeOnce.Do(k.closeNow)
}

func (k *keyed) closeNow() {
	close(k.stop)
	<-k.done
	<-k.pinsDone
	k.mu.Lock()
	for _, p := range k.parts[:len(k.parts)-1] {
		k.flushLocked(p)
	}
	k.unlock()
	if k.s.nc.IsClosed() {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*bindTimeout)
	defer cancel()
	// The partitions are let go of once the server confirmed their Naks:
	// the new owner's pulls would otherwise pass them.
	var pinned []*partition
	for {
		k.mu.Lock()
		changed := k.changed
		naking := false
		pinned = pinned[:0]
		for _, p := range k.parts[:len(k.parts)-1] {
			naking = naking || p.naking > 0
			if p.held == 0 && !p.busy && p.naking == 0 {
				pinned = append(pinned, p)
			}
		}
		k.mu.Unlock()
		if !naking {
			break
		}
		select {
		case <-changed:
			continue
		case <-ctx.Done():
		}
		break
	}
	if k.stream != nil {
		for _, p := range pinned {
			k.unpin(ctx, p)
		}
	}
	k.unlist(ctx)
	if k.sink != nil {
		_ = k.sink.Unsubscribe()
	}
}
