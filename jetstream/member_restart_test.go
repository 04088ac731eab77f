package weftjs_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/weftrt/weft/intake"
	weftjs "github.com/weftrt/weft/jetstream"
	"github.com/weftrt/weft/slots"
)

// The member bucket is kept in memory: a server restarted on the same
// store comes back with the stream, its partitions' consumers and their
// tasks, but without the bucket. The workers must list themselves again
// (and so go on sharing the partitions out): here, after the restart,
// one of two workers leaves, and the other must take its partition over
// and run every task of it.
func TestMembershipSurvivesServerRestart(t *testing.T) {
	srv := startServer(t)
	cfg := weftjs.Config{
		Stream: "MEMRESTART", Partitions: 2, AckWait: 2 * time.Second,
		PinnedTTL: 600 * time.Millisecond, MemberTTL: 300 * time.Millisecond,
		PollWait: 100 * time.Millisecond, OnError: func(error) {},
	}
	// Two member IDs that get one partition each.
	a, b := "a", ""
	for i := 0; b == ""; i++ {
		id := fmt.Sprintf("b%d", i)
		if o := weftjs.Assign(2, []string{a, id}); o[0] != o[1] {
			b = id
		}
	}
	var mu sync.Mutex
	done := map[string]int{}
	handler := func(_ context.Context, task intake.Task) error {
		mu.Lock()
		done[string(task.Payload())]++
		mu.Unlock()
		return nil
	}
	cfgA, cfgB := cfg, cfg
	cfgA.MemberID, cfgB.MemberID = a, b
	jsA, jsB := connect(t, srv.url()), connect(t, srv.url())
	srcA := newSource(t, jsA, cfgA)
	srcB := newSource(t, jsB, cfgB)
	defer srcB.Close()
	wA := newWorker(t, intake.Config{Source: srcA, Supplier: slots.NewFixed(2), Handler: handler, OnError: func(error) {}})
	wB := newWorker(t, intake.Config{Source: srcB, Supplier: slots.NewFixed(2), Handler: handler, OnError: func(error) {}})
	eventually(t, 10*time.Second, func() bool {
		return len(srcA.OwnedPartitions()) == 1 && len(srcB.OwnedPartitions()) == 1
	}, "one partition each")

	srv.stop()
	eventually(t, 10*time.Second, func() bool { return !jsA.Conn().IsConnected() && !jsB.Conn().IsConnected() }, "disconnected")
	srv.start()
	eventually(t, 10*time.Second, func() bool { return jsA.Conn().IsConnected() && jsB.Conn().IsConnected() }, "reconnected")

	// A leaves for good, gracefully.
	require.NoError(t, wA.Shutdown(context.Background()))
	srcA.Close()

	// Tasks on both partitions.
	const n = 40
	for i := range n {
		require.NoError(t, srcB.PublishKey(context.Background(), fmt.Sprintf("k%d", i), fmt.Appendf(nil, "%d", i)))
	}
	eventually(t, 15*time.Second, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(done) == n
	}, "every task run after A left (B owns %v)", srcB.OwnedPartitions())
	require.Equal(t, []int{0, 1}, slices.Sorted(slices.Values(srcB.OwnedPartitions())))
	require.NoError(t, wB.Shutdown(context.Background()))
}

// A restarted server comes back without the member bucket: whoever makes
// it again lists only the members that have renewed since. Until every
// live member had its turn, that list must not move partitions: the
// server forgot the pins too, so a worker that took another's partition
// then would run its keys beside the tasks the other still runs.
func TestServerRestartKeepsTheAssignment(t *testing.T) {
	srv := startServer(t)
	cfg := weftjs.Config{
		// MemberTTL leaves a renewal a second of lateness (it comes every
		// MemberTTL/3) before the entry lapses and the other worker rightly
		// takes its partition: a loaded CI machine stalls goroutines for
		// hundreds of milliseconds.
		Stream: "MEMKEEP", Partitions: 2, AckWait: 3 * time.Second,
		PinnedTTL: 3 * time.Second, MemberTTL: 1500 * time.Millisecond,
		PollWait: 100 * time.Millisecond, OnError: func(error) {},
	}
	a, b := "a", ""
	for i := 0; b == ""; i++ {
		id := fmt.Sprintf("b%d", i)
		if o := weftjs.Assign(2, []string{a, id}); o[0] != o[1] {
			b = id
		}
	}
	var mu sync.Mutex
	var changes []string
	js := connect(t, srv.url())
	var srcs []*weftjs.Source
	for _, id := range []string{a, b} {
		c := cfg
		c.MemberID = id
		c.OnPartitions = func(owned []int) {
			mu.Lock()
			changes = append(changes, fmt.Sprint(id, owned))
			mu.Unlock()
		}
		src := newSource(t, connect(t, srv.url()), c)
		defer src.Close()
		srcs = append(srcs, src)
	}
	eventually(t, 10*time.Second, func() bool {
		return len(srcs[0].OwnedPartitions()) == 1 && len(srcs[1].OwnedPartitions()) == 1
	}, "one partition each")
	mu.Lock()
	before := len(changes)
	mu.Unlock()

	srv.stop()
	srv.start()
	// Both members listed again in the bucket, and a few rounds after.
	kvWith := func() int {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		kv, err := js.KeyValue(ctx, "MEMKEEP_MEMBERS")
		if err != nil {
			return 0
		}
		keys, err := kv.Keys(ctx)
		if err != nil {
			return 0
		}
		return len(keys)
	}
	eventually(t, 10*time.Second, func() bool { return kvWith() == 2 }, "both members listed again")
	// A PinnedTTL more: each worker has refreshed many times since.
	deadline := time.Now().Add(cfg.PinnedTTL)
	eventually(t, 10*time.Second, func() bool { return time.Now().After(deadline) }, "time passes")
	require.Len(t, srcs[0].OwnedPartitions(), 1)
	require.Len(t, srcs[1].OwnedPartitions(), 1)
	mu.Lock()
	defer mu.Unlock()
	require.Equal(t, before, len(changes), "the assignment changed across the restart: %v", changes[before:])
}
