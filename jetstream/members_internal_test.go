package weftjs

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	natsjs "github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"
)

// memberBucket makes the member bucket "M" (TTL ttl, 0 for none) and a
// keyed source part for member id that reads it, as bind would.
func memberBucket(t *testing.T, js natsjs.JetStream, id string, ttl time.Duration) (*keyed, natsjs.KeyValue) {
	t.Helper()
	ctx := context.Background()
	kv, err := js.CreateKeyValue(ctx, natsjs.KeyValueConfig{Bucket: "M", History: 1, Storage: natsjs.MemoryStorage, TTL: ttl})
	require.NoError(t, err)
	st, err := js.Stream(ctx, bucketStream("M"))
	require.NoError(t, err)
	cfg := Config{MemberBucket: "M", PinnedTTL: time.Hour, MemberTTL: ttl}
	return &keyed{s: &Source{js: js, cfg: cfg}, id: id, kv: kv, bucket: st}, kv
}

// A listing of the member bucket cut short by its deadline (a slow
// server, a big bucket) is a failure, not a shorter list: the member
// loop would share the partitions out among the members it happened to
// read, taking partitions that are others' and letting go of its own.
func TestMembersCutShortIsAnError(t *testing.T) {
	js, _ := startJS(t)
	k, kv := memberBucket(t, js, "m0000", 0)
	const n = 1000
	for i := range n {
		_, err := kv.PutString(context.Background(), fmt.Sprintf("m%04d", i), "x")
		require.NoError(t, err)
	}
	cut := 0
	for d := 20 * time.Microsecond; d < 300*time.Millisecond; d += d / 8 {
		for range 3 {
			ctx, cancel := context.WithTimeout(context.Background(), d)
			members, err := k.members(ctx)
			cancel()
			if err == nil && len(members) < n {
				cut++
				t.Errorf("deadline %v: %d members listed of %d, and no error", d, len(members), n)
			}
		}
	}
	t.Logf("%d listings cut short without an error", cut)
}

// Every member replaces its entry every third of MemberTTL, so a listing
// often runs while another member renews. It must still list that member:
// listed through the bucket's keys (an ordered consumer that counts the
// entries to send when it starts), 284 of 500 listings missed one of three
// members renewing in a loop, and the worker took the missed member's
// partitions until its next refresh.
func TestMembersSeesEveryMemberWhileTheyRenew(t *testing.T) {
	js, _ := startJS(t)
	k, kv := memberBucket(t, js, "a", time.Minute)
	ctx := context.Background()
	others := []string{"b", "c", "d"}
	for _, m := range others {
		_, err := kv.PutString(ctx, m, "x")
		require.NoError(t, err)
	}
	var stop atomic.Bool
	renewed := make(chan int)
	go func() {
		n := 0
		for ; !stop.Load(); n++ {
			_, err := kv.PutString(ctx, others[n%len(others)], "x")
			if err != nil {
				break
			}
		}
		renewed <- n
	}()
	missed := 0
	for range 500 {
		members, err := k.members(ctx)
		require.NoError(t, err)
		if len(members) != 1+len(others) {
			missed++
		}
	}
	stop.Store(true)
	t.Logf("%d renewals during the listings", <-renewed)
	require.Zero(t, missed, "listings that missed a member")
}

// A member's Close purges its entry, up to its own last revision: the
// others list it no more at once (a delete marker would keep its subject
// until MemberTTL), and an entry put since under the same MemberID (a
// restart that overlapped the shutdown) stays.
func TestUnlistPurgesOwnEntryOnly(t *testing.T) {
	js, _ := startJS(t)
	k, kv := memberBucket(t, js, "b", time.Minute)
	other, _ := memberBucket(t, js, "a", time.Minute)
	ctx := context.Background()
	require.NoError(t, k.renew(ctx))
	members, err := other.members(ctx)
	require.NoError(t, err)
	require.Equal(t, []string{"a", "b"}, members)

	_, err = kv.PutString(ctx, "b", "the same MemberID, restarted")
	require.NoError(t, err)
	k.unlist(ctx) // as closeNow does
	members, err = other.members(ctx)
	require.NoError(t, err)
	require.Equal(t, []string{"a", "b"}, members, "the newer entry stays")

	require.NoError(t, k.renew(ctx)) // an Update that finds its revision gone, then a Put
	k.unlist(ctx)
	members, err = other.members(ctx)
	require.NoError(t, err)
	require.Equal(t, []string{"a"}, members, "purged: listed no more")
}
