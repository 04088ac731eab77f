package weftjs_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/weftrt/weft/intake"
	"github.com/weftrt/weft/intake/intaketest"
	weftjs "github.com/weftrt/weft/jetstream"
	"github.com/weftrt/weft/slots"
)

// Shutdown with tasks in flight: the running tasks finish and are acked,
// the polled but unstarted ones are returned at once (republished, not
// left to AckWait, which is long here), every slot is released, and a second
// worker takes the rest straight away.
func TestShutdownWithTasksInFlight(t *testing.T) {
	const n = 100
	srv := startServer(t)
	js := connect(t, srv.url())
	cfg := weftjs.Config{AckWait: time.Minute, PollWait: 100 * time.Millisecond}
	src := newSource(t, js, cfg)
	defer src.Close()
	publishN(t, js, src.Subject(), 0, n)

	// Every task has one key: the first runs, the others wait in its
	// line, polled but not started.
	l := intaketest.NewLedger(8)
	release, started := make(chan struct{}), make(chan struct{}, n)
	w, err := intake.New(intake.Config{
		Source:   sameKey{l.Source(src)},
		Supplier: l.Supplier(slots.NewFixed(8)),
		Handler: func(context.Context, intake.Task) error {
			started <- struct{}{}
			<-release
			return nil
		},
	})
	require.NoError(t, err)
	<-started
	eventually(t, 10*time.Second, func() bool { return w.Stats().Received == 8 }, "8 tasks polled")

	done := make(chan error)
	go func() { done <- w.Shutdown(context.Background()) }()
	select {
	case err := <-done:
		t.Fatalf("Shutdown returned %v while a task ran", err)
	case <-time.After(100 * time.Millisecond):
	}
	close(release)
	require.NoError(t, <-done)
	s := w.Stats()
	require.EqualValues(t, 1, s.Acked)
	require.EqualValues(t, 7, s.HandedBack)
	require.Zero(t, s.Slots.InUse+s.Slots.Reserved)
	require.Empty(t, l.Problems())
	require.Zero(t, l.Stats().Out)

	// The returned tasks are available at once, not after AckWait.
	src2 := newSource(t, js, cfg)
	defer src2.Close()
	w2 := newWorker(t, intake.Config{
		Source:   src2,
		Supplier: slots.NewFixed(8),
		Handler:  func(context.Context, intake.Task) error { return nil },
	})
	eventually(t, 10*time.Second, func() bool { return w2.Stats().Acked == n-1 }, "the rest acked by a second worker")
	// Handed back by republishing: a task that never ran comes back as a
	// first delivery, not a redelivery.
	require.Zero(t, w2.Stats().Redelivered)
	require.EqualValues(t, 7, src.Stats().HandedBack)
}

// Pause on a JetStream worker: the long poll in flight is cancelled, no
// task starts while paused, and Resume picks up what was published.
func TestPauseResume(t *testing.T) {
	srv := startServer(t)
	js := connect(t, srv.url())
	// A short AckWait: a message on the wire to a poll as the pause
	// cancels it is dropped, and comes back after AckWait.
	src := newSource(t, js, weftjs.Config{PollWait: time.Second, AckWait: 2 * time.Second})
	defer src.Close()
	w := newWorker(t, intake.Config{
		Source:   src,
		Supplier: slots.NewFixed(4),
		Handler:  func(context.Context, intake.Task) error { return nil },
	})
	publishN(t, js, src.Subject(), 0, 10)
	eventually(t, 10*time.Second, func() bool { return w.Stats().Acked == 10 }, "first 10 acked")
	w.Pause()
	publishN(t, js, src.Subject(), 10, 10)
	time.Sleep(300 * time.Millisecond) // room for a poll that should not happen
	// A pull cancelled by Pause may still have taken some of the new
	// tasks; those go back to the stream as strays, so its count settles
	// at 10 only once they are back.
	eventually(t, 10*time.Second, func() bool { return streamMsgs(t, js, src.Config().Stream) == 10 }, "the 10 new tasks in the stream")
	require.EqualValues(t, 10, w.Stats().Started)
	w.Resume()
	eventually(t, 10*time.Second, func() bool { return w.Stats().Acked == 20 }, "all 20 acked")
}

// sameKey gives every task of its source one key.
type sameKey struct{ intake.Source }

func (s sameKey) Poll(ctx context.Context, n int) ([]intake.Task, error) {
	tasks, err := s.Source.Poll(ctx, n)
	for i, t := range tasks {
		tasks[i] = keyedTask{t}
	}
	return tasks, err
}

// keyedTask is a task with the key "k", handed back as its own is.
type keyedTask struct{ intake.Task }

func (keyedTask) Key() string { return "k" }

func (k keyedTask) HandBack(ctx context.Context) error {
	return k.Task.(intake.HandBacker).HandBack(ctx)
}
