package weftjs

import (
	"context"
	"testing"

	natsjs "github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"
)

// listedWithB makes the member bucket, puts member a's entry (k's) and
// member b's, and has k list them.
func listedWithB(t *testing.T, js natsjs.JetStream) *keyed {
	t.Helper()
	ctx := context.Background()
	k, kv := memberBucket(t, js, "a", 0)
	require.NoError(t, k.renew(ctx))
	_, err := kv.PutString(ctx, "b", "x")
	require.NoError(t, err)
	_, err = k.members(ctx)
	require.NoError(t, err)
	return k
}

// remakeBucket deletes the member bucket "M" and makes it again, as a
// server restart does to a memory bucket, and points k at the new one.
func remakeBucket(t *testing.T, js natsjs.JetStream, k *keyed) natsjs.KeyValue {
	t.Helper()
	ctx := context.Background()
	require.NoError(t, js.DeleteKeyValue(ctx, "M"))
	kv, err := js.CreateKeyValue(ctx, natsjs.KeyValueConfig{Bucket: "M", History: 1, Storage: natsjs.MemoryStorage})
	require.NoError(t, err)
	k.kv = kv
	return kv
}

// A member bucket made anew (a server restart forgets a memory bucket)
// counts its revisions from 1 again. Whatever revision this worker's first
// write there gets, below, equal to or past its last one in the old
// bucket (the others may have written first), renew must see that its
// entry was gone and keep the members it listed before until refill: the
// server forgot their pins too. Seeing only a lower revision, it missed
// the other two, listed itself alone and took every partition
// (TestServerRestartKeepsTheAssignment failed 4 runs in 15 under load).
func TestRenewSeesBucketMadeAnew(t *testing.T) {
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
			js, _ := startJS(t)
			ctx := context.Background()
			k := listedWithB(t, js)
			require.NoError(t, k.renew(ctx))
			require.True(t, k.refill.IsZero(), "the bucket was not made anew yet")
			last := k.rev

			kv := remakeBucket(t, js, k)
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
		})
	}
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
	js, _ := startJS(t)
	k := listedWithB(t, js)
	k.kv = failingPutKV{remakeBucket(t, js, k)}
	require.Error(t, k.renew(context.Background()))
	require.False(t, k.refill.IsZero(), "the old members must count from the mismatch on")
	require.Contains(t, k.kept, "b")
}

// members reads the bucket in one request bound by its context: the
// listing it replaced held the member loop for nats.go's own 5 s when the
// server went down mid-listing (its watcher's stop waits that long), and
// the others took this worker's partitions meanwhile.
func TestMembersEndsWithItsContext(t *testing.T) {
	js, _ := startJS(t)
	k, _ := memberBucket(t, js, "a", 0)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := k.members(ctx)
	require.ErrorIs(t, err, context.Canceled)
}
