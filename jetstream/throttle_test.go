package weftjs_test

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/weftrt/weft/intake"
	weftjs "github.com/weftrt/weft/jetstream"
	"github.com/weftrt/weft/slots"
)

// At MaxAckPending the server keeps one pull request waiting and answers
// every other "Requests Pending" at once (they ask for more than the
// messages there are). The worker holds MaxAckPending tasks and has free
// slots, so its second poller keeps asking; it must back off, further
// each time (up to a second, PollWait here), instead of asking again every few
// milliseconds. Over a window of two seconds the polls stay few (the old
// 5ms pause, then the worker's empty-poll backoff of at most 100ms, made
// it twenty or more), and the source counts them.
func TestPollsBackOffAtMaxAckPending(t *testing.T) {
	const maxAckPending = 2
	var pauses pauseLog
	defer weftjs.ObserveThrottle(pauses.add)()
	srv := startServer(t)
	js := connect(t, srv.url())
	src := newSource(t, js, weftjs.Config{PollWait: time.Second, AckWait: time.Minute, MaxAckPending: maxAckPending})
	defer src.Close()
	const n = 4 // fewer than the free slots: one poll's request waits for them all
	publishN(t, js, src.Subject(), 0, n)

	w, release := workerAtMaxAckPending(t, src, maxAckPending, nil)
	defer release() // a failed test must not leave handlers blocked
	// Every "come back later" in a row doubles the pause (in [d/2, d],
	// d = 10ms, 20ms, ...), so the fifth in a row is at least 80ms. Of
	// seven pauses at least five are in a row: a poll that brings a task
	// starts over, which can happen only while the first two tasks are
	// handed out. Asking again at once, as the worker used to, takes no
	// pause at all.
	eventually(t, 20*time.Second, func() bool { return len(pauses.all()) >= 7 }, "seven throttled polls")
	got := pauses.all()
	release()
	eventually(t, 10*time.Second, func() bool { return w.Stats().Acked == n }, "every task acked once the running ones finish")
	require.NoError(t, w.Shutdown(context.Background()))
	t.Logf("pauses: %v; throttled polls in all: %d", got, src.Stats().ThrottledPolls)
	require.GreaterOrEqual(t, slices.Max(got[:7]), 80*time.Millisecond, "the longest of seven pauses")
	require.Positive(t, src.Stats().ThrottledPolls)
}

// pauseLog records the pauses of throttled polls.
type pauseLog struct {
	mu     sync.Mutex
	pauses []time.Duration
}

func (l *pauseLog) add(d time.Duration) {
	l.mu.Lock()
	l.pauses = append(l.pauses, d)
	l.mu.Unlock()
}

func (l *pauseLog) all() []time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]time.Duration(nil), l.pauses...)
}

// workerAtMaxAckPending starts a worker over src (8 slots, 2 pollers)
// whose handlers hold their tasks, and waits until maxAckPending of them
// run: the consumer is then at MaxAckPending. release lets the handlers
// return; calling it again does nothing.
func workerAtMaxAckPending(t *testing.T, src *weftjs.Source, maxAckPending int, onError func(error)) (w *intake.Worker, release func()) {
	t.Helper()
	held := make(chan struct{})
	release = sync.OnceFunc(func() { close(held) })
	w = newWorker(t, intake.Config{
		Source:     src,
		Supplier:   slots.NewFixed(8),
		MinPollers: 2,
		MaxPollers: 2,
		OnError:    onError,
		Handler: func(context.Context, intake.Task) error {
			<-held
			return nil
		},
	})
	eventually(t, 10*time.Second, func() bool { return w.Stats().Started == uint64(maxAckPending) }, "MaxAckPending tasks running")
	return w, release
}
