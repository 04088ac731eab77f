package weftjs

import (
	"context"
	"runtime"
	"testing"
	"time"

	natsjs "github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"
)

// A member bucket made anew (a server restart forgets a memory bucket)
// counts its revisions from 1 again. Whatever revision this worker's first
// write there gets, below, equal to or past its last one in the old
// bucket (the others may have written first), renew must see that its
// entry was gone and keep the members it listed before until refill: the
// server forgot their pins too. Seeing only a lower revision, it missed
// the other two, listed itself alone and took every partition
// (TestServerRestartKeepsTheAssignment failed 4 runs in 15 under load).
func TestRenewSeesBucketMadeAnew(t *testing.T) {
	js, nc := startJS(t)
	ctx := context.Background()

	// In the old bucket: a (revision 1), b (2), a (3). In the new one,
	// c writes after times before a does.
	for _, tc := range []struct {
		name  string
		after int
	}{
		{"lower", 0},
		{"equal", 2},
		{"higher", 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := Config{MemberBucket: "M", PinnedTTL: time.Hour}
			bucket := natsjs.KeyValueConfig{Bucket: cfg.MemberBucket, History: 1, Storage: natsjs.MemoryStorage}
			kv, err := js.CreateKeyValue(ctx, bucket)
			require.NoError(t, err)
			k := &keyed{s: &Source{js: js, nc: nc, cfg: cfg}, id: "a", kv: kv}
			require.NoError(t, k.renew(ctx))
			_, err = kv.PutString(ctx, "b", "x")
			require.NoError(t, err)
			require.NoError(t, k.renew(ctx))
			_, err = k.members(ctx)
			require.NoError(t, err)
			require.True(t, k.refill.IsZero(), "the bucket was not made anew yet")
			last := k.rev

			require.NoError(t, js.DeleteKeyValue(ctx, cfg.MemberBucket))
			kv, err = js.CreateKeyValue(ctx, bucket)
			require.NoError(t, err)
			k.kv = kv
			for range tc.after {
				_, err := kv.PutString(ctx, "c", "x")
				require.NoError(t, err)
			}
			require.NoError(t, k.renew(ctx))
			t.Logf("revision %d in the old bucket, %d in the new", last, k.rev)
			members, err := k.members(ctx)
			require.NoError(t, err)
			require.Contains(t, members, "b", "a member listed before the bucket was made anew")
			require.False(t, k.refill.IsZero())

			// The next write finds its entry, and changes nothing.
			refill := k.refill
			require.NoError(t, k.renew(ctx))
			require.Equal(t, refill, k.refill)
			require.NoError(t, js.DeleteKeyValue(ctx, cfg.MemberBucket))
		})
	}
}

// lingeringKV lists members through a lister that never closes its
// channel: nats.go's lister closes it only once its watcher has stopped,
// and stopping it waits up to 5 s for a server that went down mid-listing.
type lingeringKV struct {
	natsjs.KeyValue
	keys chan string
}

func (kv lingeringKV) ListKeys(context.Context, ...natsjs.WatchOpt) (natsjs.KeyLister, error) {
	return lingeringLister{kv.keys}, nil
}

type lingeringLister struct{ keys chan string }

func (l lingeringLister) Keys() <-chan string { return l.keys }
func (l lingeringLister) Stop() error         { panic("Stop waits on the server; members must not call it") }

// members returns once its context ends, with an error, whether or not
// the lister has let go: before, it read the keys to their end and held
// the member loop for nats.go's 5 s after a server restart, long enough
// for the other workers to take its partitions
// (TestServerRestartKeepsTheAssignment failed 1 run in 5 with two cores
// busy; this test hung until the test binary's timeout).
func TestMembersReturnsWhenListerLingers(t *testing.T) {
	keys := make(chan string, 300)
	keys <- "b"
	k := &keyed{s: &Source{}, id: "a", kv: lingeringKV{keys: keys}}
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		// Cancel once members has read the first key: the listing is
		// under way, and its end never comes.
		for len(keys) > 0 {
			runtime.Gosched()
		}
		cancel()
	}()
	_, err := k.members(ctx)
	require.ErrorIs(t, err, context.Canceled)
	// What the lister sends after that is drained, so that it never
	// blocks on a full channel.
	for range cap(keys) {
		keys <- "c"
	}
	require.Eventually(t, func() bool { return len(keys) == 0 }, 10*time.Second, time.Millisecond)
	close(keys) // the lister lets go at last, and the drain ends
}

// failingPutKV fails every Put: a write whose answer was lost.
type failingPutKV struct{ natsjs.KeyValue }

func (failingPutKV) Put(context.Context, string, []byte) (uint64, error) {
	return 0, context.DeadlineExceeded
}

// A renew that finds its entry gone keeps the old members even when the
// write after that fails: the write may have been stored with its answer
// lost, taking the new bucket to the old revision, and the next Update
// would pass as if nothing had happened (found in review).
func TestRenewKeepsMembersWhenTheWriteAfterAMismatchFails(t *testing.T) {
	js, nc := startJS(t)
	ctx := context.Background()
	cfg := Config{MemberBucket: "M", PinnedTTL: time.Hour}
	bucket := natsjs.KeyValueConfig{Bucket: cfg.MemberBucket, History: 1, Storage: natsjs.MemoryStorage}
	kv, err := js.CreateKeyValue(ctx, bucket)
	require.NoError(t, err)
	k := &keyed{s: &Source{js: js, nc: nc, cfg: cfg}, id: "a", kv: kv}
	require.NoError(t, k.renew(ctx))
	_, err = kv.PutString(ctx, "b", "x")
	require.NoError(t, err)
	_, err = k.members(ctx)
	require.NoError(t, err)

	require.NoError(t, js.DeleteKeyValue(ctx, cfg.MemberBucket))
	kv, err = js.CreateKeyValue(ctx, bucket)
	require.NoError(t, err)
	k.kv = failingPutKV{kv}
	require.Error(t, k.renew(ctx))
	require.False(t, k.refill.IsZero(), "the old members must count from the mismatch on")
	require.Contains(t, k.kept, "b")
}
