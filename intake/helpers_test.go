package intake_test

import (
	"context"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/weftrt/weft/intake"
	"github.com/weftrt/weft/scheduler"
)

// newPool returns a pool closed when the test ends.
func newPool(t testing.TB, workers int) *scheduler.Pool {
	t.Helper()
	p, err := scheduler.New(scheduler.WithWorkers(workers), scheduler.WithName(t.Name()))
	require.NoError(t, err)
	t.Cleanup(p.Close)
	return p
}

// newWorker starts a worker shut down (with a deadline) when the test ends.
func newWorker(t testing.TB, cfg intake.Config) *intake.Worker {
	t.Helper()
	if cfg.OnError == nil {
		cfg.OnError = func(err error) { t.Logf("worker: %v", err) }
	}
	w, err := intake.New(cfg)
	require.NoError(t, err)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := w.Shutdown(ctx); err != nil {
			t.Errorf("Shutdown at cleanup: %v", err)
			w.Close()
		}
	})
	return w
}

// eventually waits up to d for cond, failing the test with what if it
// does not come true.
func eventually(t testing.TB, d time.Duration, cond func() bool, what string, args ...any) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("after %v: %s", d, fmt.Sprintf(what, args...))
		}
		time.Sleep(time.Millisecond)
	}
}

// putN queues tasks whose payloads are "0" .. "n-1".
func putN(q *intake.MemQueue, n int) {
	for i := range n {
		q.Put([]byte(strconv.Itoa(i)))
	}
}

// slotsIdle reports whether the worker holds no slot. A worker that still
// polls holds slots for its polls, so this is for a stopped or paused one.
func slotsIdle(w *intake.Worker) bool {
	s := w.Stats().Slots
	return s.InUse == 0 && s.Reserved == 0
}
