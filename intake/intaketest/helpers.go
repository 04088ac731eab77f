package intaketest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/weftrt/weft/intake"
	"github.com/weftrt/weft/scheduler"
)

// NewPool returns a pool of the given number of workers, named after the
// test and closed when it ends.
func NewPool(tb testing.TB, workers int) *scheduler.Pool {
	tb.Helper()
	p, err := scheduler.New(scheduler.WithWorkers(workers), scheduler.WithName(tb.Name()))
	if err != nil {
		tb.Fatalf("scheduler.New: %v", err)
	}
	tb.Cleanup(p.Close)
	return p
}

// NewWorker starts a worker that is shut down, within grace, when the test
// ends; cleanups run last-in first-out, so it stops before a pool or a
// connection made earlier in the test. Errors the worker reports go to the
// test log unless cfg.OnError is set.
func NewWorker(tb testing.TB, cfg intake.Config, grace time.Duration) *intake.Worker {
	tb.Helper()
	if cfg.OnError == nil {
		cfg.OnError = func(err error) { tb.Logf("worker: %v", err) }
	}
	w, err := intake.New(cfg)
	if err != nil {
		tb.Fatalf("intake.New: %v", err)
	}
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), grace)
		defer cancel()
		if err := w.Shutdown(ctx); err != nil {
			tb.Errorf("Shutdown at cleanup: %v", err)
			w.Close()
		}
	})
	return w
}

// Eventually waits up to d for cond, polling, and fails the test with
// what (formatted with args) if it does not come true. It is for
// conditions that a correct system reaches; the deadline only turns a
// hang into a readable failure.
func Eventually(tb testing.TB, d time.Duration, cond func() bool, what string, args ...any) {
	tb.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			tb.Fatalf("after %v: %s", d, fmt.Sprintf(what, args...))
		}
		time.Sleep(time.Millisecond)
	}
}
