package weftjs

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	natsjs "github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nuid"
	"github.com/weftrt/weft/intake"
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

// keyed is the part of a Source that reads the partitions (see the
// package doc, Keyed tasks).
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

// createBucket creates the member bucket, or binds to it if another
// worker just did.
func (k *keyed) createBucket(ctx context.Context) (natsjs.KeyValue, error) {
	cfg := k.s.cfg
	kv, err := k.s.js.CreateKeyValue(ctx, natsjs.KeyValueConfig{
		Bucket: cfg.MemberBucket, TTL: cfg.MemberTTL, History: 1,
		Storage: natsjs.MemoryStorage, Replicas: cfg.Replicas,
	})
	if errors.Is(err, natsjs.ErrBucketExists) {
		kv, err = k.s.js.KeyValue(ctx, cfg.MemberBucket)
	}
	return kv, err
}

// renew puts this worker's entry in the member bucket. The bucket is kept
// in memory: a server restarted on its store comes back without it (the
// stream and the consumers are still there), and every Put fails until
// someone makes it again. So a Put that fails because the bucket is gone
// makes it again (unless BindOnly) and tries once more: otherwise the
// workers would go on with the assignment they last computed, a worker
// that leaves would leave its partitions to nobody, and the pins of busy
// partitions would not be renewed.
//
// A bucket made anew, by this worker or another, holds only the members
// that have renewed since, and the server forgot the pins with it: until
// refill, PinnedTTL later, the members listed before (kept) count too, as
// their pins would have.
func (k *keyed) renew(ctx context.Context) error {
	val := []byte(time.Now().UTC().Format(time.RFC3339Nano))
	rev, anew, err := k.put(ctx, val)
	if err != nil && !anew && !k.s.cfg.BindOnly {
		if _, lerr := k.s.js.KeyValue(ctx, k.s.cfg.MemberBucket); !errors.Is(lerr, natsjs.ErrBucketNotFound) {
			return err
		}
		anew = true
		if _, cerr := k.createBucket(ctx); cerr != nil {
			err = fmt.Errorf("%w (the bucket is gone, and making it again failed: %w)", err, cerr)
		} else {
			rev, err = k.kv.Put(ctx, k.id, val)
		}
	}
	if anew {
		// Whether or not the write that follows succeeded: one whose
		// answer was lost may have taken the new bucket to the old
		// revision, and the next Update would then pass.
		k.kept = slices.Clone(k.listed)
		k.refill = time.Now().Add(k.s.cfg.PinnedTTL)
	}
	if err != nil {
		return err
	}
	k.rev = rev
	return nil
}

// put writes this worker's entry and says whether the entry it last wrote
// was gone. After the first write, each is an Update on the revision of
// the last, which fails if the entry is not that one any more: nearly
// always because the bucket was made anew (or the entry expired while this
// worker could not renew it). A write applied whose answer was lost, or a
// second worker under the same MemberID, fail it too; counting the old
// members a while longer then only delays a move. Revisions alone cannot
// tell: a new bucket counts from 1 again, and the others' writes may take
// it to this worker's last revision or past it before its first
// (TestRenewSeesBucketMadeAnew).
func (k *keyed) put(ctx context.Context, val []byte) (rev uint64, anew bool, err error) {
	if k.rev == 0 {
		rev, err = k.kv.Put(ctx, k.id, val)
		return rev, false, err
	}
	rev, err = k.kv.Update(ctx, k.id, val, k.rev)
	if errors.Is(err, natsjs.ErrKeyRevisionMismatch) {
		rev, err = k.kv.Put(ctx, k.id, val)
		return rev, true, err
	}
	return rev, false, err
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

// keepPins renews the pins this worker holds every third of MemberTTL, on
// a ticker of its own. The member loop cannot do it: it waits on the
// member bucket, whose requests, when the bucket is out of reach (its
// stream's leader lost, a server too busy to answer) while the partitions
// are not, each take up to bindTimeout to time out. Meanwhile this
// worker's entry expires, the others take its partitions, and a PinnedTTL
// shorter than that wait would hand them over while their tasks still run
// here (TestHungMemberBucketKeepsPins).
func (k *keyed) keepPins() {
	defer close(k.pinsDone)
	tick := time.NewTicker(k.s.cfg.MemberTTL / 3)
	defer tick.Stop()
	for {
		select {
		case <-tick.C:
		case <-k.stop:
			return
		}
		if k.s.nc.IsClosed() {
			continue
		}
		k.mu.Lock()
		owned := k.pinsOwned
		k.mu.Unlock()
		k.keepAliveHeld(owned)
	}
}

func (k *keyed) run() {
	defer close(k.done)
	tick := time.NewTicker(k.s.cfg.MemberTTL / 3)
	defer tick.Stop()
	for {
		k.refresh()
		select {
		case <-tick.C:
		case <-k.kick:
		case <-k.stop:
			return
		}
	}
}

// refresh renews this worker's member entry, reads the live members,
// takes the partitions assigned to it and lets go of the others once it
// holds none of their tasks. keepPins renews the pins it holds, those of
// partitions it must still let go of included.
func (k *keyed) refresh() {
	ctx, cancel := context.WithTimeout(context.Background(), bindTimeout)
	defer cancel()
	if k.s.nc.IsClosed() {
		return
	}
	if err := k.bind(ctx); err != nil {
		// Until it binds, this worker renews no entry and takes no
		// partition: the others share its partitions out once its entry
		// expires, and so does it then (disown), letting go of the pins
		// of those it holds no task of, so that they move. Polls fail on
		// it too, but their errors go to the worker, and a worker whose
		// slots are all busy does not poll. The partitions whose tasks it
		// still runs keep their pins until those are settled, as on a
		// reassignment (see apply).
		k.setPinsOwned(false)
		k.s.report(fmt.Errorf("weft/jetstream: member %s in %s: %w", k.id, k.s.cfg.MemberBucket, err))
		if k.unboundSince.IsZero() {
			k.unboundSince = time.Now()
		} else if time.Since(k.unboundSince) >= k.s.cfg.MemberTTL {
			k.disown(ctx)
		}
		return
	}
	k.unboundSince = time.Time{}
	// Bound: while the member bucket cannot be read, keepPins renews the
	// pins of the partitions it last assigned to this worker too.
	k.setPinsOwned(true)
	if err := k.renew(ctx); err != nil {
		k.s.report(fmt.Errorf("weft/jetstream: renewing member %s in %s: %w", k.id, k.s.cfg.MemberBucket, err))
		return
	}
	members, err := k.members(ctx)
	if err != nil {
		k.s.report(fmt.Errorf("weft/jetstream: listing members in %s: %w", k.s.cfg.MemberBucket, err))
		return
	}
	k.apply(ctx, assign(k.s.cfg.Partitions, members))
}

// disown gives up the partitions of a worker that has not bound for a
// MemberTTL: its entry has expired (it renews none while unbound), so the
// others have shared its partitions out. Its polls fail while unbound, so
// this changes what it reports (OwnedPartitions, OnPartitions) and lets go
// at once of the pins of partitions it holds no task of, which would
// otherwise lapse only after PinnedTTL.
func (k *keyed) disown(ctx context.Context) {
	k.apply(ctx, make([]string, k.s.cfg.Partitions))
}

// apply takes the partitions owners gives this worker and lets go of the
// others once it holds none of their tasks.
func (k *keyed) apply(ctx context.Context, owners []string) {
	var owned []int
	var release []*partition
	k.mu.Lock()
	for i, who := range owners {
		p := k.parts[i]
		p.owned = who == k.id
		switch {
		case p.owned:
			owned = append(owned, i)
		case p.held == 0 && !p.busy && len(p.returned) == 0 && p.naking == 0:
			release = append(release, p)
		default:
			// Assigned elsewhere, but its tasks are still here: keepPins
			// renews the pin until they are settled, or it would lapse
			// after PinnedTTL and the new owner run their keys' next
			// tasks beside them.
		}
	}
	changed := !slices.Equal(owned, k.owned)
	k.owned = owned
	k.wakeLocked()
	k.mu.Unlock()
	if changed && k.s.cfg.OnPartitions != nil {
		k.s.cfg.OnPartitions(slices.Clone(owned))
	}
	if ctx.Err() != nil {
		// A refresh whose bind timed out has no time left to unpin:
		// each unpin would fail and be reported, every refresh of an
		// outage. The pins lapse after PinnedTTL instead.
		return
	}
	for _, p := range release {
		k.unpin(ctx, p)
	}
}

// keepAliveHeld renews the pins of the partitions this worker still
// holds tasks of and, if owned, of those the last refresh assigned to it:
// when the member bucket cannot be read, or the consumers cannot be
// bound, the pins must not lapse under running tasks. Only a worker that
// still polls (the bucket is out of reach, the consumers are bound) keeps
// its assignment: one that cannot bind would hold idle partitions that
// nobody polls. A partition let go of (unpin) has no pin left to renew.
func (k *keyed) keepAliveHeld(owned bool) {
	var alive []*partition
	k.mu.Lock()
	for _, p := range k.parts[:len(k.parts)-1] {
		if (owned && p.owned) || p.held > 0 || p.busy || len(p.returned) > 0 || p.naking > 0 {
			alive = append(alive, p)
		}
	}
	k.mu.Unlock()
	for _, p := range alive {
		k.keepAlive(p)
	}
}

func (k *keyed) setPinsOwned(owned bool) {
	k.mu.Lock()
	k.pinsOwned = owned
	k.mu.Unlock()
}

// members lists the live members (whose entries have not expired), this
// worker always among them.
//
// It reads the subjects of the bucket's stream, in one answer that the
// server takes under the stream's lock, rather than listing the bucket's
// keys: that listing is an ordered consumer, which drops a key whose entry
// is replaced while it runs (it counts the entries to send when it starts,
// and the new one is past them). Every member replaces its entry every
// third of MemberTTL, so listings raced with renewals all the time: 284
// of 500 missed a member while three others renewed in a loop, and a
// worker that missed one took its partitions until its next refresh
// (TestMembersSeesEveryMemberWhileTheyRenew; TestServerRestartKeepsTheAssignment
// failed 1 run in 25 with both cores busy). The listing also held the
// member loop up to nats.go's own 5 s when the server went down under it.
//
// A subject stays while any message is stored under it, a delete marker
// included: so Close purges its entry instead of deleting it (closeNow).
func (k *keyed) members(ctx context.Context) ([]string, error) {
	prefix := bucketSubjects(k.s.cfg.MemberBucket)
	info, err := k.bucket.Info(ctx, natsjs.WithSubjectFilter(prefix+">"))
	if err != nil {
		return nil, err
	}
	members := []string{k.id}
	for subject := range info.State.Subjects {
		if m := strings.TrimPrefix(subject, prefix); m != k.id {
			members = append(members, m)
		}
	}
	slices.Sort(members[1:]) // map order: keep what OnPartitions sees stable
	k.listed = members
	if time.Now().Before(k.refill) {
		members = append(slices.Clone(members), k.kept...)
	}
	return members, nil
}

// unlist takes this worker's entry out of the member bucket. A purge, not
// a Delete: a delete marker would keep the subject, and members would list
// this worker until MemberTTL. Only up to the entry this worker put: a
// worker that has listed itself under the same MemberID since (a restart
// that overlapped this shutdown) put a newer one, and purging it would
// drop that worker from every assignment until its next renewal.
func (k *keyed) unlist(ctx context.Context) {
	if k.bucket == nil || k.rev == 0 {
		return
	}
	subject := bucketSubjects(k.s.cfg.MemberBucket) + k.id
	_ = k.bucket.Purge(ctx, natsjs.WithPurgeSubject(subject), natsjs.WithPurgeSequence(k.rev+1))
}

// bucketStream and bucketSubjects name a key-value bucket's stream and
// the prefix of its keys' subjects, as the server's key-value layer does.
func bucketStream(bucket string) string   { return "KV_" + bucket }
func bucketSubjects(bucket string) string { return "$KV." + bucket + "." }

// keepAlive renews p's pin, if this worker holds it, with a pull request
// that no message fits (max_bytes 1): the server resets the pin's timer
// when a request carries it, so a worker whose slots are all busy (it
// does not poll) keeps its partitions. The answer (a 409, a 404, or a 423
// if the pin is stale) comes to the sink; see keptAlive.
func (k *keyed) keepAlive(p *partition) {
	pin := p.puller.getPin()
	if pin == "" {
		return
	}
	req := fmt.Sprintf(`{"batch":1,"max_bytes":1,"no_wait":true,"group":%q,"id":%q}`, pinGroup, pin)
	reply := fmt.Sprintf("%s.%d.%s", strings.TrimSuffix(k.sink.Subject, ".>"), p.index, pin)
	_ = k.s.nc.PublishRequest(p.puller.subject, reply, []byte(req))
}

// keptAlive reads the answer to a keep-alive: a 423 says the pin it
// carried is stale (it lapsed), so that the next pull asks for a new one.
func (k *keyed) keptAlive(inbox string, m *nats.Msg) {
	if m.Reply != "" || m.Header.Get("Status") != "423" {
		return
	}
	idx, pin, ok := strings.Cut(strings.TrimPrefix(m.Subject, inbox+"."), ".")
	i, err := strconv.Atoi(idx)
	if !ok || err != nil || i < 0 || i >= len(k.parts)-1 {
		return
	}
	k.parts[i].puller.dropPin(pin)
}

// unpin lets go of a partition no longer assigned to this worker, once it
// holds none of its tasks: its new owner, whose pulls the server holds
// back while the pin is ours, gets it at once rather than after
// PinnedTTL. Before the tasks are settled it must not: the new owner
// would run a key's next tasks while this worker still runs its earlier
// ones.
//
// The server's unpin names no pin: it lets go of whichever client holds
// the partition. Ours may have lapsed (this worker paused or cut off for
// longer than PinnedTTL, a server restart) and the partition be pinned
// to its new owner since, whose running keys an unpin would open to any
// other puller. So it unpins only a partition the server says is pinned
// to this worker's pin; another's pin is left alone, and ours forgotten.
func (k *keyed) unpin(ctx context.Context, p *partition) {
	pin := p.puller.getPin()
	if pin == "" {
		return
	}
	holder, err := k.pinnedTo(ctx, p)
	if err == nil && holder != pin {
		p.puller.dropPin(pin)
		return
	}
	if err == nil {
		err = k.stream.UnpinConsumer(ctx, p.consumer, pinGroup)
	}
	if err != nil && !errors.Is(err, natsjs.ErrConsumerNotFound) {
		k.s.report(fmt.Errorf("weft/jetstream: unpinning partition %d (it moves after PinnedTTL instead): %w", p.index, err))
		return
	}
	p.puller.dropPin(pin)
}

// pinnedTo returns the pin that p's consumer is pinned to now, "" if none.
func (k *keyed) pinnedTo(ctx context.Context, p *partition) (string, error) {
	c, err := k.stream.Consumer(ctx, p.consumer)
	if err != nil {
		return "", err
	}
	for _, g := range c.CachedInfo().PriorityGroups {
		if g.Group == pinGroup {
			return g.PinnedClientID, nil
		}
	}
	return "", nil
}

// wakeLocked wakes the polls waiting for a partition to pull.
func (k *keyed) wakeLocked() {
	close(k.changed)
	k.changed = make(chan struct{})
}

// take returns the next partition a poll may pull, after from in the
// sweep, marking it busy, and the position to go on from; nil once the
// sweep is over.
func (k *keyed) take(from, left int, patient bool) (*partition, int, int) {
	now := time.Now()
	k.mu.Lock()
	defer k.mu.Unlock()
	for ; left > 0; left-- {
		p := k.parts[from%len(k.parts)]
		from++
		skip := !patient && !p.drainedAt.IsZero() && now.Sub(p.drainedAt) < p.skipFor()
		if p.owned && !p.busy && len(p.returned) == 0 && p.naking == 0 && !skip && !now.Before(p.throttledUntil) {
			p.busy = true
			return p, from, left - 1
		}
	}
	return nil, from, 0
}

// poll sweeps the partitions this worker owns (and the unkeyed
// consumer), asking each in turn for what is left of n, until it has
// tasks or PollWait has passed.
func (k *keyed) poll(ctx context.Context, n int) ([]intake.Task, error) {
	deadline := time.Now().Add(k.s.cfg.PollWait)
	var tasks []intake.Task
	for patient := false; ; patient = true {
		k.mu.Lock()
		from := k.next
		k.next++
		changed := k.changed
		k.mu.Unlock()
		left := len(k.parts)
		pulled := false
		var p *partition
		for len(tasks) < n {
			if p, from, left = k.take(from, left, patient); p == nil {
				break
			}
			pulled = true
			// The first sweep asks without waiting where the server can
			// answer at once (the unkeyed consumer, a partition this
			// worker holds the pin of): a loaded partition's tasks then
			// never wait behind an empty one's expiry. A request without a
			// pin that finds messages pinned to another client would wait
			// for them, so it always expires.
			//
			// The server answers at once only while the consumer is below
			// MaxAckPending: a request for more than it may deliver gets
			// what it may, and is then held, unanswered, until a task is
			// settled. So such a request asks for no more than the room
			// this worker's own tasks leave, and none is sent while the
			// consumer is known to be full.
			wait, want := sweepWait, n-len(tasks)
			if !patient && (p.index < 0 || p.puller.getPin() != "") {
				if room := k.room(p); room > 0 {
					wait, want = 0, min(want, room)
				}
			}
			msgs, err := p.puller.pull(ctx, want, wait)
			tasks = append(tasks, k.admit(p, msgs, err, want)...)
			switch {
			case err == nil, errors.Is(err, errComeBackLater), errors.Is(err, errPinLost):
				continue
			case isRequestOver(err):
				var se *statusError
				if errors.As(err, &se) && strings.Contains(se.description, "Consumer Deleted") {
					k.unbind()
				}
				continue
			case isNoResponders(err):
				// No consumer answered: it was deleted (or its stream made
				// anew) while no pull of it was in flight, so no 409 told.
				// Bind again, making it again, before the next poll, or
				// the partition's tasks would never be delivered while
				// this worker lives.
				k.unbind()
			}
			return tasks, err
		}
		if len(tasks) > 0 || !time.Now().Before(deadline) {
			return tasks, nil
		}
		if !pulled { // nothing to pull: wait for a change
			wake := deadline
			if at := k.throttledTill(); !at.IsZero() && at.Before(wake) {
				wake = at
			}
			t := time.NewTimer(time.Until(wake))
			select {
			case <-changed:
			case <-t.C:
			case <-ctx.Done():
				t.Stop()
				return nil, ctx.Err()
			}
			t.Stop()
		}
	}
}

// throttledTill returns the end of the earliest throttle pause still
// running on a consumer this worker owns, zero if none: nothing else
// tells a poll waiting for a consumer to pull that one may be pulled
// again.
func (k *keyed) throttledTill() time.Time {
	now := time.Now()
	var at time.Time
	k.mu.Lock()
	defer k.mu.Unlock()
	for _, p := range k.parts {
		if p.owned && p.throttledUntil.After(now) && (at.IsZero() || p.throttledUntil.Before(at)) {
			at = p.throttledUntil
		}
	}
	return at
}

// room returns how many more tasks p's consumer may deliver before
// MaxAckPending, as far as this worker knows: none while it is known to
// be full.
func (k *keyed) room(p *partition) int {
	k.mu.Lock()
	defer k.mu.Unlock()
	if p.full {
		return 0
	}
	return max(k.s.cfg.MaxAckPending-p.held, 0)
}

func (k *keyed) unbind() {
	k.mu.Lock()
	k.bound = false
	k.mu.Unlock()
}

// admit makes tasks of the messages a pull on p brought, counts them as
// held, and ends the pull.
func (k *keyed) admit(p *partition, msgs []*nats.Msg, pullErr error, asked int) []intake.Task {
	tasks := make([]intake.Task, 0, len(msgs))
	drained := len(msgs) == 0 && pullErr == nil
	var left uint64 // the messages pending after the last one delivered
	for _, m := range msgs {
		t, err := k.s.newTask(m)
		if err != nil {
			k.s.setAside(m, err)
			continue
		}
		k.s.backlog.Store(int64(t.meta.NumPending))
		drained = t.meta.NumPending == 0
		left = t.meta.NumPending
		tasks = append(tasks, t)
	}
	k.mu.Lock()
	switch {
	case errors.Is(pullErr, errComeBackLater):
		p.full = true
	case len(tasks) > 0 && left == 0:
		p.full = false
	case len(msgs) >= min(asked, maxPull):
		p.full = false // it gave all that was asked: it had room
	case len(tasks) > 0:
		p.full = true // it stopped short with messages left
	case len(msgs) == 0 && pullErr == nil && p.held == 0:
		p.full = false // nothing of this worker's is pending on it
	}
	p.drainedAt = time.Time{}
	if drained {
		p.drainedAt = time.Now()
	}
	var pause time.Duration
	switch {
	case len(msgs) > 0:
		p.emptyPulls = 0
		p.throttle.reset()
		p.throttledUntil = time.Time{}
	case pullErr == nil:
		p.emptyPulls++
	case errors.Is(pullErr, errComeBackLater):
		k.s.stats.throttled.Add(1)
		pause = p.throttle.next()
		p.throttledUntil = time.Now().Add(pause)
	}
	for _, t := range tasks {
		if t := t.(*task); t.part != nil {
			t.counted = true
			p.held++
			if p.index >= 0 { // the unkeyed consumer has no order to keep
				t.entering = true
				p.entering++
			}
		}
	}
	if p.entering == 0 {
		p.busy = false
		k.flushLocked(p)
	}
	k.unlock()
	if pause > 0 && testHookThrottle != nil {
		testHookThrottle(pause)
	}
	return tasks
}

// taken ends t's part in keeping its partition busy (see
// partition.busy): once every task of the pull is Taken, the partition
// may be pulled again.
func (k *keyed) taken(t *task) {
	p := t.part
	k.mu.Lock()
	defer k.unlock()
	if !t.entering {
		return
	}
	t.entering = false
	if p.entering--; p.entering == 0 {
		p.busy = false
		k.flushLocked(p)
		k.wakeLocked()
	}
}

// settled ends t's hold on its partition; handedBack says it was returned
// unrun, to be Nak'd with the partition's other returned tasks.
func (k *keyed) settled(t *task, handedBack bool) {
	p := t.part
	k.mu.Lock()
	if t.counted {
		p.held--
	}
	if handedBack {
		p.returned = append(p.returned, t.msg)
	}
	k.flushLocked(p)
	idle := !p.owned && p.held == 0 && !p.busy && len(p.returned) == 0 && p.naking == 0
	k.unlock()
	if idle {
		select { // let the member loop unpin it now
		case k.kick <- struct{}{}:
		default:
		}
	}
}

// pendingNak is a returned message whose Nak k.unlock sends.
type pendingNak struct {
	p *partition
	m *nats.Msg
}

// nakTimeout bounds the wait for the server to confirm a returned task's
// Nak: after it, the partition is pulled again, and the task, if the Nak
// was lost, comes back after AckWait.
const nakTimeout = 2 * time.Second

// nakBody is a Nak sent as a request, which the server confirms.
var nakBody = []byte("-NAK")

// flushLocked Naks p's returned messages, in stream order, once p holds
// no other task, no pull on it is in flight and no earlier Nak of it
// waits for its confirmation (see partition.returned). The Naks are
// requests, sent in order by k.unlock once the lock is let go; p is not
// pulled until the server has confirmed them all (see partition.naking).
// A Nak that fails is reported.
func (k *keyed) flushLocked(p *partition) {
	if p.held > 0 || p.busy || p.naking > 0 || len(p.returned) == 0 {
		return
	}
	slices.SortFunc(p.returned, func(a, b *nats.Msg) int {
		return compareSeq(a, b)
	})
	for _, m := range p.returned {
		k.toNak = append(k.toNak, pendingNak{p, m})
	}
	p.naking += len(p.returned)
	p.returned = nil
}

// naked ends the wait for one of p's Naks.
func (k *keyed) naked(p *partition, err error) {
	k.mu.Lock()
	if err != nil {
		k.nakErrs = append(k.nakErrs, fmt.Errorf("weft/jetstream: returning a task of partition %d (it comes back after AckWait): %w", p.index, err))
	}
	p.naking--
	idle := false
	if p.naking == 0 {
		k.flushLocked(p)
		k.wakeLocked()
		idle = !p.owned && p.held == 0 && !p.busy && len(p.returned) == 0 && p.naking == 0
	}
	k.unlock()
	if idle {
		select { // let the member loop unpin it now
		case k.kick <- struct{}{}:
		default:
		}
	}
}

// unlock lets go of k.mu, then sends the Naks flushed under it, and
// reports the Naks that failed: the report calls the user's OnError,
// which may call back into the source (OwnedPartitions takes k.mu).
func (k *keyed) unlock() {
	errs := k.nakErrs
	k.nakErrs = nil
	naks := k.toNak
	k.toNak = nil
	k.mu.Unlock()
	for _, n := range naks {
		if n.m.Reply == "" {
			k.naked(n.p, nats.ErrMsgNoReply)
			continue
		}
		k.s.acker.send(context.Background(), n.m.Reply, nakBody, nakTimeout, func(err error) { k.naked(n.p, err) })
	}
	for _, err := range errs {
		k.s.report(err)
	}
}

func compareSeq(a, b *nats.Msg) int {
	ma, erra := a.Metadata()
	mb, errb := b.Metadata()
	if erra != nil || errb != nil {
		return 0
	}
	switch {
	case ma.Sequence.Stream < mb.Sequence.Stream:
		return -1
	case ma.Sequence.Stream > mb.Sequence.Stream:
		return 1
	}
	return 0
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
