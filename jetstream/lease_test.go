package weftjs_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/weftrt/weft/intake"
	weftjs "github.com/weftrt/weft/jetstream"
	"github.com/weftrt/weft/slots"
)

// A task that runs for several AckWaits keeps its lease through
// InProgress heartbeats: it is delivered once. The heartbeat comes every
// tenth of AckWait (the default is a third), so that a beat a loaded
// machine delays by most of a second still renews the lease in time.
func TestHeartbeatsKeepLongTask(t *testing.T) {
	srv := startServer(t)
	js := connect(t, srv.url())
	src := newSource(t, js, weftjs.Config{AckWait: time.Second, PollWait: 100 * time.Millisecond})
	defer src.Close()
	publishN(t, js, src.Subject(), 0, 1)
	var runs atomic.Int64
	var w *intake.Worker
	ready := make(chan struct{})
	w = newWorker(t, intake.Config{
		Source:    src,
		Supplier:  slots.NewFixed(2),
		Heartbeat: 100 * time.Millisecond,
		Handler: func(context.Context, intake.Task) error {
			runs.Add(1)
			<-ready
			// Held through 25 beats, a Heartbeat apart: about two and a
			// half AckWaits, counted in beats rather than slept, so a slow
			// machine holds it longer, never shorter.
			from := w.Stats().Heartbeats
			for w.Stats().Heartbeats < from+25 {
				time.Sleep(10 * time.Millisecond)
			}
			return nil
		},
	})
	close(ready)
	eventually(t, 10*time.Second, func() bool { return w.Stats().Acked == 1 }, "acked")
	s := w.Stats()
	require.EqualValues(t, 1, runs.Load())
	require.Zero(t, s.Redelivered)
	require.GreaterOrEqual(t, s.Heartbeats, uint64(3))
	require.Zero(t, streamMsgs(t, js, src.Config().Stream))
}

// Without heartbeats, AckWait runs out under a long task and the server
// delivers it again, here to the same worker's free slot: at least once.
func TestAckWaitRedelivers(t *testing.T) {
	srv := startServer(t)
	js := connect(t, srv.url())
	// The redelivered copy has all of AckWait to be acked, or a third
	// delivery would follow: long enough for a loaded machine.
	src := newSource(t, js, weftjs.Config{AckWait: 1500 * time.Millisecond, PollWait: 100 * time.Millisecond})
	defer src.Close()
	publishN(t, js, src.Subject(), 0, 1)
	var runs atomic.Int64
	second := make(chan int, 1)
	secondRan := make(chan struct{})
	w := newWorker(t, intake.Config{
		Source:    src,
		Supplier:  slots.NewFixed(2),
		Heartbeat: -1,
		OnError:   func(error) {},
		Handler: func(_ context.Context, task intake.Task) error {
			switch runs.Add(1) {
			case 1:
				<-secondRan // outlive the lease: held until the copy has run
			case 2:
				second <- task.Deliveries()
				close(secondRan)
			}
			return nil
		},
	})
	require.Equal(t, 2, <-second)
	eventually(t, 10*time.Second, func() bool { return streamMsgs(t, js, src.Config().Stream) == 0 }, "acked")
	require.EqualValues(t, 1, w.Stats().Redelivered)
}
