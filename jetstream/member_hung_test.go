package weftjs_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	natsjs "github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"
	"github.com/weftrt/weft/intake"
	weftjs "github.com/weftrt/weft/jetstream"
	"github.com/weftrt/weft/slots"
)

// hungJS hands out member buckets whose requests, while hung is set, get
// no answer until their context ends: a bucket out of reach (its stream's
// leader lost, the server too busy to answer) while the work stream is
// not.
type hungJS struct {
	natsjs.JetStream
	hung *atomic.Bool
}

func (j hungJS) KeyValue(ctx context.Context, bucket string) (natsjs.KeyValue, error) {
	kv, err := j.JetStream.KeyValue(ctx, bucket)
	if err != nil {
		return nil, err
	}
	return hungKV{kv, j.hung}, nil
}

func (j hungJS) CreateKeyValue(ctx context.Context, cfg natsjs.KeyValueConfig) (natsjs.KeyValue, error) {
	kv, err := j.JetStream.CreateKeyValue(ctx, cfg)
	if err != nil {
		return nil, err
	}
	return hungKV{kv, j.hung}, nil
}

type hungKV struct {
	natsjs.KeyValue
	hung *atomic.Bool
}

func (kv hungKV) Put(ctx context.Context, key string, value []byte) (uint64, error) {
	if kv.hung.Load() {
		<-ctx.Done()
		return 0, ctx.Err()
	}
	return kv.KeyValue.Put(ctx, key, value)
}

// A worker whose member bucket stops answering (its requests time out
// rather than fail) while it still reaches the work stream drops out of
// the others' member lists once its entry expires, and they claim its
// partitions. The pins of the partitions it holds tasks of must not lapse
// meanwhile: here a worker whose one slot runs a task of key K is pinned
// to K's partition, and the other worker, which takes the partition over
// in its own view, must not be given K's next task while the first still
// runs. The member loop renewed the pins only once its bucket requests
// had timed out (a second each), past a PinnedTTL below that.
func TestHungMemberBucketKeepsPins(t *testing.T) {
	other := ""
	for i := 0; other == ""; i++ {
		if id := fmt.Sprintf("b%d", i); weftjs.Assign(1, []string{"a", id})[0] == "a" {
			other = id
		}
	}
	srv := startServer(t)
	var mu sync.Mutex
	renewErrs := 0
	cfg := weftjs.Config{
		// PinnedTTL below the bucket requests' one-second timeout, as the
		// test needs, and far above the pins' renewal period (MemberTTL/3)
		// so that a renewal stalled on a loaded machine does not lapse.
		Stream: "KHUNG", Partitions: 1, AckWait: 10 * time.Second,
		PinnedTTL: 800 * time.Millisecond, MemberTTL: 300 * time.Millisecond,
		PollWait: 50 * time.Millisecond, MemberID: "a",
		OnError: func(err error) {
			if strings.Contains(err.Error(), "renewing member a") {
				mu.Lock()
				renewErrs++
				mu.Unlock()
			}
		},
	}
	js := connect(t, srv.url())
	var hung atomic.Bool
	src := newSource(t, hungJS{js, &hung}, cfg)
	defer src.Close()
	for i := range 2 {
		require.NoError(t, src.PublishKey(context.Background(), "K", fmt.Appendf(nil, "%d", i)))
	}

	var running, overlaps atomic.Int32
	started, release := make(chan struct{}), make(chan struct{})
	var releaseOnce sync.Once
	let := func() { releaseOnce.Do(func() { close(release) }) }
	defer let() // a failed check must not leave the task blocked
	handler := func(_ context.Context, task intake.Task) error {
		if running.Add(1) > 1 {
			overlaps.Add(1)
		}
		defer running.Add(-1)
		if string(task.Payload()) == "0" {
			close(started)
			<-release
		}
		return nil
	}
	w := newWorker(t, intake.Config{Source: src, Supplier: slots.NewFixed(1), Handler: handler})
	<-started
	consumer := partitionConsumer(src, 0)
	pin := pinnedClient(t, js, cfg.Stream, consumer)
	require.NotEmpty(t, pin, "the worker holds the pin of the partition whose task it runs")

	cfgB := cfg
	cfgB.MemberID, cfgB.OnError = other, func(error) {}
	srcB := newSource(t, connect(t, srv.url()), cfgB)
	defer srcB.Close()
	wB := newWorker(t, intake.Config{Source: srcB, Supplier: slots.NewFixed(1), Handler: handler})
	eventually(t, 10*time.Second, func() bool {
		return len(src.OwnedPartitions()) == 1 && len(srcB.OwnedPartitions()) == 0
	}, "the partition assigned to a")

	hung.Store(true)
	eventually(t, 10*time.Second, func() bool { return len(srcB.OwnedPartitions()) == 1 },
		"b taking the partition over once a's entry expired")
	mu.Lock()
	from := renewErrs
	mu.Unlock()
	// Each failed renewal waits out its request's timeout: three of them
	// span several PinnedTTLs.
	eventually(t, 30*time.Second, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return renewErrs >= from+3
	}, "three renewals timed out")
	require.Equal(t, pin, pinnedClient(t, js, cfg.Stream, consumer),
		"the pin lapsed while its worker, alive, ran a task of the partition")
	require.Zero(t, wB.Stats().Acked+wB.Stats().Failed, "b ran key K's next task while a still ran K")

	hung.Store(false)
	let()
	eventually(t, 20*time.Second, func() bool { return w.Stats().Acked+wB.Stats().Acked == 2 }, "both tasks acknowledged")
	require.NoError(t, w.Shutdown(context.Background()))
	require.NoError(t, wB.Shutdown(context.Background()))
	require.Zero(t, overlaps.Load(), "two tasks of key K ran at once")
}

func (kv hungKV) Update(ctx context.Context, key string, value []byte, last uint64) (uint64, error) {
	if kv.hung.Load() {
		<-ctx.Done()
		return 0, ctx.Err()
	}
	return kv.KeyValue.Update(ctx, key, value, last)
}
