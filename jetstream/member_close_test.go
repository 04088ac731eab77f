package weftjs_test

import (
	"context"
	"errors"
	"testing"
	"time"

	natsjs "github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"
	weftjs "github.com/weftrt/weft/jetstream"
)

// A worker restarted under the same MemberID may list itself before the
// old one's Close has run (a rolling restart, a Source replaced in
// place). Close deleted the MemberID's entry whatever its revision, so it
// deleted the newer worker's: the others then shared the partitions out
// without it until its next renewal. Close must delete only the entry it
// put.
func TestCloseKeepsANewerEntryOfItsMemberID(t *testing.T) {
	srv := startServer(t)
	cfg := weftjs.Config{
		Stream: "MEMCLOSE", Partitions: 2, MemberID: "m",
		// Renewals a minute apart: neither source puts its entry again
		// while the test runs, so the entry read is the one each put at
		// its start.
		PinnedTTL: 3 * time.Minute, MemberTTL: 3 * time.Minute, AckWait: 3 * time.Minute,
		PollWait: 100 * time.Millisecond, OnError: func(error) {},
	}
	js := connect(t, srv.url())
	kv := func() natsjs.KeyValue {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		kv, err := js.KeyValue(ctx, "MEMCLOSE_MEMBERS")
		require.NoError(t, err)
		return kv
	}
	entry := func() (uint64, bool) {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		e, err := kv().Get(ctx, "m")
		if errors.Is(err, natsjs.ErrKeyNotFound) {
			return 0, false
		}
		require.NoError(t, err)
		return e.Revision(), true
	}

	old := newSource(t, connect(t, srv.url()), cfg)
	var oldRev uint64
	eventually(t, 10*time.Second, func() bool {
		rev, ok := entry()
		oldRev = rev
		return ok
	}, "the old worker listed")
	newer := newSource(t, connect(t, srv.url()), cfg)
	defer newer.Close()
	var newRev uint64
	eventually(t, 10*time.Second, func() bool {
		rev, ok := entry()
		newRev = rev
		return ok && rev > oldRev
	}, "the newer worker listed")

	old.Close()
	rev, ok := entry()
	require.True(t, ok, "the old worker's Close deleted the newer worker's entry")
	require.Equal(t, newRev, rev)

	// Its own entry, Close still deletes.
	newer.Close()
	_, ok = entry()
	require.False(t, ok, "Close left its own entry")
}
