package weftjs

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	natsjs "github.com/nats-io/nats.go/jetstream"
)

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
