package weftjs_test

import (
	"context"
	"errors"
	"hash/fnv"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/weftrt/weft/intake"
	"github.com/weftrt/weft/intake/intaketest"
	weftjs "github.com/weftrt/weft/jetstream"
	"github.com/weftrt/weft/slots"
)

// The slot invariant on JetStream under stress, audited from the
// supplier's and the source's side (intaketest.Ledger): several pollers,
// a third of first deliveries failing (errors and panics), random pauses,
// publishers still publishing. Every task ends acked, slots out never
// exceed the maximum, and no pull asks for more messages than there are
// free slots.
func TestSlotInvariantUnderStress(t *testing.T) {
	const maxSlots = 16
	n := 3000
	if testing.Short() {
		n = 600
	}
	srv := startServer(t)
	js := connect(t, srv.url())
	src := newSource(t, js, weftjs.Config{AckWait: 2 * time.Second, PollWait: 20 * time.Millisecond})
	defer src.Close()

	l := intaketest.NewLedger(maxSlots)
	var running, peak atomic.Int64
	var mu sync.Mutex
	succeeded := map[string]int{}
	w := newWorker(t, intake.Config{
		Source:     l.Source(src),
		Supplier:   l.Supplier(slots.NewFixed(maxSlots)),
		MaxPollers: 4,
		MaxBatch:   5,
		Backoff:    intake.Exponential(time.Millisecond, 5*time.Millisecond),
		OnError:    func(error) {},
		Handler: func(_ context.Context, task intake.Task) error {
			r := running.Add(1)
			defer running.Add(-1)
			for p := peak.Load(); r > p && !peak.CompareAndSwap(p, r); p = peak.Load() {
			}
			h := fnv.New32a()
			h.Write(task.Payload())
			roll := h.Sum32() % 100
			time.Sleep(time.Duration(roll) * 5 * time.Microsecond)
			if task.Deliveries() == 1 {
				switch {
				case roll%3 == 1:
					return errors.New("transient")
				case roll%10 == 2:
					panic("transient panic")
				}
			}
			mu.Lock()
			succeeded[string(task.Payload())]++
			mu.Unlock()
			return nil
		},
	})

	stop := make(chan struct{})
	var chaos sync.WaitGroup
	chaos.Go(func() {
		for {
			select {
			case <-stop:
				w.Resume()
				return
			case <-time.After(time.Duration(rand.IntN(20)) * time.Millisecond):
			}
			if rand.IntN(3) == 0 {
				w.Pause()
			} else {
				w.Resume()
			}
		}
	})
	for lo := 0; lo < n; lo += 200 { // published while the worker runs
		publishN(t, js, src.Subject(), lo, min(200, n-lo))
	}
	eventually(t, 90*time.Second, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(succeeded) == n
	}, "all tasks succeeded")
	close(stop)
	chaos.Wait()
	eventually(t, 20*time.Second, func() bool { return streamMsgs(t, js, src.Config().Stream) == 0 }, "stream drained")
	require.NoError(t, w.Shutdown(context.Background()))

	require.Empty(t, l.Problems())
	ls := l.Stats()
	require.Zero(t, ls.Out, "every permit released")
	require.LessOrEqual(t, ls.PeakOut, maxSlots)
	require.LessOrEqual(t, peak.Load(), int64(maxSlots))
	dups := 0
	for _, k := range succeeded {
		dups += k - 1
	}
	s := w.Stats()
	t.Logf("tasks %d: started %d, failed %d (panics %d), handed back %d, redelivered %d, duplicates %d; polls %d; peak slots out %d, asked %d, running %d",
		n, s.Started, s.Failed, s.Panics, s.HandedBack, s.Redelivered, dups, ls.Polls, ls.PeakOut, ls.PeakAsked, peak.Load())
	require.Zero(t, dups, "a task acked (double ack, confirmed) ran again")
}
