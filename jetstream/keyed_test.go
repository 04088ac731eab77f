package weftjs_test

import (
	"context"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	natsjs "github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"
	"github.com/weftrt/weft/intake"
	weftjs "github.com/weftrt/weft/jetstream"
	"github.com/weftrt/weft/slots"
)

// publishKeyed publishes n keyed tasks over keys keys, round robin, each
// payload "key/seq" with seq the task's place among its key's.
func publishKeyed(t testing.TB, js natsjs.JetStream, prefix string, n, keys int) {
	t.Helper()
	publishKeyedRange(t, js, prefix, 0, n, keys)
}

// publishKeyedRange is publishKeyed for the tasks from .. to-1 of the
// same sequence.
func publishKeyedRange(t testing.TB, js natsjs.JetStream, prefix string, from, to, keys int) {
	t.Helper()
	publishBatched(t, from, to, func(i int) (natsjs.PubAckFuture, error) {
		key := keyName(i % keys)
		return weftjs.PublishKeyedAsync(js, prefix, key, fmt.Appendf(nil, "%s/%d", key, i/keys))
	})
}

// keyName gives keys the characters a subject cannot hold, so that the
// encoding is exercised.
func keyName(i int) string { return fmt.Sprintf("cust. *>%d é", i) }

func parseKeyed(t testing.TB, payload []byte) (string, int) {
	key, seq, ok := strings.Cut(string(payload), "/")
	n, err := strconv.Atoi(seq)
	require.True(t, ok && err == nil, "payload %q", payload)
	return key, n
}

// One worker, keyed tasks: every task runs once, each key's in publish
// order, never two of a key at once, and Key is the key published.
func TestKeyedOneWorker(t *testing.T) {
	const n, keys = 2000, 50
	srv := startServer(t)
	js := connect(t, srv.url())
	cfg := weftjs.Config{Stream: "KEYED1", Partitions: 4, PollWait: 200 * time.Millisecond, MemberTTL: time.Second}
	src := newSource(t, js, cfg)
	defer src.Close()
	require.Equal(t, "keyed1.k", src.KeyedPrefix())
	publishKeyed(t, js, src.KeyedPrefix(), n, keys)
	require.NoError(t, src.Publish(context.Background(), []byte("unkeyed/0")))

	var mu sync.Mutex
	next := map[string]int{}
	running := map[string]bool{}
	var bad []string
	w := newWorker(t, intake.Config{
		Source: src, Supplier: slots.NewFixed(16), Handler: func(_ context.Context, task intake.Task) error {
			key, seq := parseKeyed(t, task.Payload())
			got := task.(intake.Keyed).Key()
			mu.Lock()
			if key == "unkeyed" {
				if got != "" {
					bad = append(bad, "unkeyed task has key "+got)
				}
				next[key]++
				mu.Unlock()
				return nil
			}
			if got != key {
				bad = append(bad, fmt.Sprintf("Key %q, published with %q", got, key))
			}
			if running[key] {
				bad = append(bad, "overlap on "+key)
			}
			if next[key] != seq {
				bad = append(bad, fmt.Sprintf("%s: ran %d, expected %d", key, seq, next[key]))
			}
			running[key] = true
			next[key] = seq + 1
			mu.Unlock()
			runtime.Gosched() // let other handlers run while this one counts as running
			hashWork(task.Payload())
			mu.Lock()
			running[key] = false
			mu.Unlock()
			return nil
		},
	})
	eventually(t, 60*time.Second, func() bool { return w.Stats().Acked == n+1 }, "all tasks acked")
	mu.Lock()
	defer mu.Unlock()
	require.Empty(t, bad)
	require.Equal(t, []int{0, 1, 2, 3}, src.OwnedPartitions())
}

// A keyed message written by hand without the key-token header, or with a
// token of another partition, still runs, is reported, and shares one key
// with the partition's other such messages (so they run one at a time, in
// order), while properly published tasks keep their own keys.
func TestKeyedMessageWithoutTokenHeader(t *testing.T) {
	srv := startServer(t)
	js := connect(t, srv.url())
	var mu sync.Mutex
	var reports []string
	const parts = 4
	cfg := weftjs.Config{Stream: "KEYEDHAND", Partitions: parts, PollWait: 100 * time.Millisecond, MemberTTL: time.Second,
		OnError: func(err error) { mu.Lock(); reports = append(reports, err.Error()); mu.Unlock() }}
	src := newSource(t, js, cfg)
	defer src.Close()
	ctx := context.Background()
	subj := src.KeyedPrefix() + "." + weftjs.KeyToken("by-hand")
	_, err := js.Publish(ctx, subj, []byte("no header"))
	require.NoError(t, err)
	m := nats.NewMsg(subj)
	m.Data = []byte("foreign token")
	foreign := "k0" // a key of another partition than by-hand's
	for i := 1; weftjs.PartitionOf(foreign, parts) == weftjs.PartitionOf("by-hand", parts); i++ {
		foreign = fmt.Sprintf("k%d", i)
	}
	m.Header.Set(weftjs.HeaderKeyToken, weftjs.KeyToken(foreign))
	_, err = js.PublishMsg(ctx, m)
	require.NoError(t, err)
	_, err = weftjs.PublishKeyed(ctx, js, src.KeyedPrefix(), "proper", []byte("proper"))
	require.NoError(t, err)

	keys := map[string]string{}
	w := newWorker(t, intake.Config{
		Source: src, Supplier: slots.NewFixed(4), Handler: func(_ context.Context, task intake.Task) error {
			mu.Lock()
			keys[string(task.Payload())] = task.(intake.Keyed).Key()
			mu.Unlock()
			return nil
		},
	})
	eventually(t, 30*time.Second, func() bool { return w.Stats().Acked == 3 }, "all three tasks acked")
	mu.Lock()
	defer mu.Unlock()
	require.Equal(t, "proper", keys["proper"])
	require.NotEmpty(t, keys["no header"], "a keyed task without the header must still be kept in order")
	require.Equal(t, keys["no header"], keys["foreign token"], "unmarked tasks of one partition share a key")
	require.NotEqual(t, "by-hand", keys["no header"])
	require.Len(t, reports, 2, "each unmarked task is reported: %q", reports)
	for _, r := range reports {
		require.Contains(t, r, weftjs.HeaderKeyToken)
	}
}
