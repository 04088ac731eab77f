package intake_test

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/weftrt/weft/intake"
	"github.com/weftrt/weft/slots"
)

// lineTask is a keyed task whose settlements are written to a shared log,
// and whose Nack may run a hook (to make a Resume meet a key line at a
// chosen point).
type lineTask struct {
	id, key string
	log     *eventLog
	onNack  func()
}

func (l *lineTask) ID() string                              { return l.id }
func (l *lineTask) Payload() []byte                         { return []byte(l.id) }
func (l *lineTask) Deliveries() int                         { return 1 }
func (l *lineTask) Key() string                             { return l.key }
func (l *lineTask) InProgress(context.Context) error        { return nil }
func (l *lineTask) Terminate(context.Context, string) error { return nil }
func (l *lineTask) Ack(context.Context) error {
	l.log.add("ack " + l.id)
	return nil
}

func (l *lineTask) Nack(context.Context, time.Duration) error {
	l.log.add("returned " + l.id)
	if l.onNack != nil {
		l.onNack()
	}
	return nil
}

type eventLog struct {
	mu     sync.Mutex
	events []string
}

func (e *eventLog) add(s string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.events = append(e.events, s)
}

func (e *eventLog) get() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.events)
}

// H, A and B of one key arrive in one poll: H runs, A and B wait in the
// key's line. The worker is paused while H runs, so A is handed back when
// H ends; a Resume that comes right then must not let B run: the source
// delivers A again, and A must run before B.
func TestPauseHandsBackTheWholeKeyLine(t *testing.T) {
	log := &eventLog{}
	var w *intake.Worker
	h := &lineTask{id: "H", key: "k", log: log}
	a := &lineTask{id: "A", key: "k", log: log, onNack: func() { w.Resume() }}
	b := &lineTask{id: "B", key: "k", log: log}
	src := &instantSource{valve: 1 << 40}
	for _, task := range []intake.Task{h, a, b} {
		src.put(task)
	}
	// The pause comes once A and B wait behind H.
	ev := pauseWhileHRuns(t, src, log, &w, func() bool { return intake.KeyLineLen(w, "k") == 3 })
	require.Equal(t, []string{"run H", "returned A", "returned B"}, ev, "B ran before A, handed back ahead of it")
}

// pauseWhileHRuns starts *w, one poller over src, whose handler logs its
// runs and holds task H until the worker has been paused; then it waits
// until task B has settled, shuts *w down, and returns the log, less H's
// ack (settled on a goroutine of its own, at any point). The pause comes
// once ready reports the interleaving the test is about: H starts before
// the poller has taken in the rest of its poll, and a pause before that
// hands them back from the poller itself.
func pauseWhileHRuns(t *testing.T, src intake.Source, log *eventLog, w **intake.Worker, ready func() bool) []string {
	t.Helper()
	started, release := make(chan struct{}), make(chan struct{})
	*w = newWorker(t, intake.Config{
		Source:     src,
		Supplier:   slots.NewFixed(4),
		MinPollers: 1, MaxPollers: 1,
		OnError: func(error) {},
		Handler: func(_ context.Context, task intake.Task) error {
			log.add("run " + task.ID())
			if task.ID() == "H" {
				close(started)
				<-release
			}
			return nil
		},
	})
	<-started
	eventually(t, 10*time.Second, ready, "the state to pause in")
	(*w).Pause()
	close(release)
	eventually(t, 10*time.Second, func() bool {
		ev := log.get()
		return slices.Contains(ev, "ack B") || slices.Contains(ev, "returned B")
	}, "B settled")
	require.NoError(t, (*w).Shutdown(context.Background()))
	return slices.DeleteFunc(log.get(), func(e string) bool { return e == "ack H" })
}

// requireBothReturned waits until B has settled, shuts w down, and
// requires that A and then B went back unrun: B, of A's key and behind it,
// must not run while A is out to be delivered again.
func requireBothReturned(t *testing.T, w *intake.Worker, log *eventLog, why string) {
	t.Helper()
	eventually(t, 10*time.Second, func() bool {
		ev := log.get()
		return slices.Contains(ev, "ack B") || slices.Contains(ev, "returned B")
	}, "B settled")
	require.NoError(t, w.Shutdown(context.Background()))
	require.Equal(t, []string{"returned A", "returned B"}, log.get(), why)
}
