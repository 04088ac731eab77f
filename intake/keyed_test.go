package intake_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/weftrt/weft/intake"
	"github.com/weftrt/weft/slots"
)

// keyLog checks, per key, that no two tasks run at once and that they
// run in the order they were put.
type keyLog struct {
	mu      sync.Mutex
	running map[string]bool
	runs    map[string][]keyRun // every run of the key's tasks, in order
	overlap atomic.Int64
}

type keyRun struct {
	idx int
	ok  bool
}

func newKeyLog() *keyLog {
	return &keyLog{running: map[string]bool{}, runs: map[string][]keyRun{}}
}

// start records that key's task starts; it counts an overlap if another
// task of key is running.
func (l *keyLog) start(key string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.running[key] {
		l.overlap.Add(1)
	}
	l.running[key] = true
}

// end records the run of key's task idx, and whether it succeeded.
func (l *keyLog) end(key string, idx int, ok bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.running[key] = false
	l.runs[key] = append(l.runs[key], keyRun{idx, ok})
}

// check asserts that every key ran its n tasks in put order: each run is
// of the key's first task not yet done (a failed task is retried before
// the next one of its key runs), and all n succeeded.
func (l *keyLog) check(t *testing.T, keys, n int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	assert.Zero(t, l.overlap.Load(), "tasks of one key ran at once")
	require.Len(t, l.runs, keys)
	for key, runs := range l.runs {
		done := 0
		for _, r := range runs {
			require.Equal(t, done, r.idx, "key %s: task %d ran while %d was not done", key, r.idx, done)
			if r.ok {
				done++
			}
		}
		assert.Equal(t, n, done, "key %s", key)
	}
}

// keyedPayload is "key/index".
func keyedPayload(key string, idx int) []byte { return []byte(key + "/" + strconv.Itoa(idx)) }

func parseKeyed(p []byte) (string, int) {
	key, idx, _ := strings.Cut(string(p), "/")
	i, _ := strconv.Atoi(idx)
	return key, i
}

// spin does a random amount of work, so that the tasks of many keys
// interleave differently from run to run.
func spin(rng *rand.Rand) {
	n := rng.IntN(20_000)
	x := 0
	for i := range n {
		x += i * i
	}
	sinkInt.Add(int64(x & 1))
}

var sinkInt atomic.Int64

var errFlaky = errors.New("flaky")

// TestKeyedTasksRunInOrderWithoutOverlap: many keys, random work, one in
// ten first deliveries failing. Each key's tasks run one at a time, in put
// order, a failed task is retried before the next of its key, and every
// task is acknowledged once.
func TestKeyedTasksRunInOrderWithoutOverlap(t *testing.T) {
	const keys, perKey = 40, 25
	q := intake.NewMemQueue(intake.MemQueueConfig{PollWait: 20 * time.Millisecond})
	order := rand.Perm(keys * perKey) // put the keys' tasks interleaved, each key in order
	next := make([]int, keys)
	for _, k := range order {
		key := fmt.Sprintf("k%02d", k%keys)
		q.PutKey(key, keyedPayload(key, next[k%keys]))
		next[k%keys]++
	}
	log := newKeyLog()
	w := newWorker(t, intake.Config{
		Source:   q,
		Supplier: slots.NewFixed(16),
		Backoff:  func(int) time.Duration { return 0 },
		Handler: func(_ context.Context, task intake.Task) error {
			key, idx := parseKeyed(task.Payload())
			log.start(key)
			rng := rand.New(rand.NewPCG(uint64(idx), uint64(task.Deliveries())))
			spin(rng)
			fail := task.Deliveries() == 1 && rng.IntN(10) == 0
			log.end(key, idx, !fail)
			if fail {
				return errFlaky
			}
			return nil
		},
	})
	eventually(t, time.Minute, func() bool { return q.Len() == 0 }, "all keyed tasks acknowledged")
	require.NoError(t, w.Shutdown(context.Background()))
	log.check(t, keys, perKey)
	s := w.Stats()
	assert.EqualValues(t, keys*perKey, s.Acked)
}

// Different keys run at once: a's task waits until b's has started, which
// it can only if the worker does not serialize across keys.
func TestDifferentKeysRunInParallel(t *testing.T) {
	q := intake.NewMemQueue(intake.MemQueueConfig{PollWait: 20 * time.Millisecond})
	q.PutKey("a", []byte("a/0"))
	q.PutKey("b", []byte("b/0"))
	bStarted := make(chan struct{})
	var acked atomic.Int64
	w := newWorker(t, intake.Config{
		Source:   q,
		Supplier: slots.NewFixed(4),
		Handler: func(_ context.Context, task intake.Task) error {
			defer acked.Add(1)
			if key, _ := parseKeyed(task.Payload()); key == "b" {
				close(bStarted)
				return nil
			}
			select {
			case <-bStarted:
				return nil
			case <-time.After(time.Minute): // a guard against a hang, not a timing
				t.Error("b never started while a ran")
				return nil
			}
		},
	})
	eventually(t, time.Minute, func() bool { return acked.Load() == 2 && q.Len() == 0 }, "both acknowledged")
	require.NoError(t, w.Shutdown(context.Background()))
}

// keyedFake is a fakeTask with a key, from a source that knows nothing of
// keys: it may deliver several tasks of one key in one poll.
type keyedFake struct {
	fakeTask
	key string
}

func (k *keyedFake) Key() string { return k.key }

// TestKeyLinesSerializeWithinTheWorker: a source that delivers many tasks
// of the same keys at once (as a JetStream consumer may). The worker never
// runs two tasks of a key at once, holding the slots of those that wait,
// and settles each task once. With one poller it runs each key's tasks in
// delivery order; with several, two polls answered at the same time have
// no order between them, so only the overlap is checked.
func TestKeyLinesSerializeWithinTheWorker(t *testing.T) {
	for _, pollers := range []int{1, 4} {
		t.Run(fmt.Sprintf("pollers=%d", pollers), func(t *testing.T) {
			const keys, perKey = 5, 40
			var acked counter
			src := &instantSource{valve: 1 << 40}
			for i := range perKey {
				for k := range keys {
					key := "k" + strconv.Itoa(k)
					src.put(&keyedFake{key: key, fakeTask: fakeTask{
						id: key + "/" + strconv.Itoa(i), payload: keyedPayload(key, i), deliveries: 1, acked: &acked,
					}})
				}
			}
			log := newKeyLog()
			w := newWorker(t, intake.Config{
				Source:     src,
				Supplier:   slots.NewFixed(32),
				MaxBatch:   32,
				MinPollers: pollers,
				MaxPollers: pollers,
				Handler: func(_ context.Context, task intake.Task) error {
					key, idx := parseKeyed(task.Payload())
					log.start(key)
					spin(rand.New(rand.NewPCG(uint64(idx), 1)))
					log.end(key, idx, true)
					return nil
				},
			})
			eventually(t, time.Minute, func() bool { return acked.Load() == keys*perKey }, "all tasks acknowledged")
			require.NoError(t, w.Shutdown(context.Background()))
			if pollers == 1 {
				log.check(t, keys, perKey)
			} else {
				assert.Zero(t, log.overlap.Load(), "tasks of one key ran at once")
			}
		})
	}
}

// keyedSource returns an instantSource holding n tasks of key "k", with
// payloads k/0 .. k/n-1.
func keyedSource(n int, acked, nacked *counter) *instantSource {
	src := &instantSource{valve: 1 << 40}
	for i := range n {
		src.put(&keyedFake{key: "k", fakeTask: fakeTask{
			id: "k/" + strconv.Itoa(i), payload: keyedPayload("k", i), deliveries: 1, acked: acked, nacked: nacked,
		}})
	}
	return src
}

// A handler that calls runtime.Goexit ends its pool goroutine; the tasks
// of its key that wait behind it still run (on another), in order.
func TestKeyLineSurvivesGoexit(t *testing.T) {
	var acked, nacked counter
	log := newKeyLog()
	w := newWorker(t, intake.Config{
		Source:     keyedSource(4, &acked, &nacked),
		Supplier:   slots.NewFixed(8),
		MaxBatch:   8,
		MaxPollers: 1,
		Backoff:    func(int) time.Duration { return time.Hour },
		Handler: func(_ context.Context, task intake.Task) error {
			key, idx := parseKeyed(task.Payload())
			log.start(key)
			log.end(key, idx, true)
			if idx == 0 {
				runtime.Goexit()
			}
			return nil
		},
	})
	eventually(t, time.Minute, func() bool { return acked.Load() == 3 && nacked.Load() == 1 },
		"k/0 nacked (Goexit), the rest acknowledged")
	require.NoError(t, w.Shutdown(context.Background()))
	log.check(t, 1, 4)
}

// Shutdown hands back the tasks waiting in a key's line at once (their
// slots go back), lets the running one finish, and settles each task once.
func TestShutdownHandsBackKeyLines(t *testing.T) {
	var acked, nacked counter
	started, release := make(chan struct{}), make(chan struct{})
	w := newWorker(t, intake.Config{
		Source:     keyedSource(5, &acked, &nacked),
		Supplier:   slots.NewFixed(8),
		MaxBatch:   8,
		MaxPollers: 1,
		Handler: func(_ context.Context, task intake.Task) error {
			if _, idx := parseKeyed(task.Payload()); idx == 0 {
				close(started)
				<-release
			}
			return nil
		},
	})
	<-started
	eventually(t, time.Minute, func() bool { return w.Stats().Slots.Reserved >= 4 }, "k/1..k/4 wait, holding slots")
	done := make(chan error)
	go func() { done <- w.Shutdown(context.Background()) }()
	eventually(t, time.Minute, func() bool { return nacked.Load() == 4 }, "the waiting tasks handed back")
	close(release)
	require.NoError(t, <-done)
	assert.EqualValues(t, 1, acked.Load())
	assert.True(t, slotsIdle(w))
}

// orderedFake is a keyed task that counts the worker's Taken calls.
type orderedFake struct {
	keyedFake
	taken atomic.Int32
}

func (o *orderedFake) Taken() { o.taken.Add(1) }

// The worker calls Taken exactly once on every task a poll returned, also
// on those it hands back unrun.
func TestOrderKeeperTakenOncePerTask(t *testing.T) {
	var acked counter
	src := &instantSource{valve: 1 << 40}
	tasks := make([]*orderedFake, 60)
	for i := range tasks {
		key := "k" + strconv.Itoa(i%3)
		tasks[i] = &orderedFake{keyedFake: keyedFake{key: key, fakeTask: fakeTask{
			id: key + "/" + strconv.Itoa(i), payload: keyedPayload(key, i), deliveries: 1, acked: &acked,
		}}}
		src.put(tasks[i])
	}
	w := newWorker(t, intake.Config{
		Source: src, Supplier: slots.NewFixed(8), MaxPollers: 4,
		Handler: func(context.Context, intake.Task) error { return nil },
	})
	eventually(t, time.Minute, func() bool { return acked.Load() == int64(len(tasks)) }, "all acknowledged")
	require.NoError(t, w.Shutdown(context.Background()))
	for _, task := range tasks {
		assert.EqualValues(t, 1, task.taken.Load(), "task %s", task.id)
	}
}
