package scheduler_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/weftrt/weft/scheduler"
)

// TestStandInIdentityNotReused: when Block's stand-in finishes, it leaves
// its goroutine's identity in the worker until the blocked task's stop
// puts its own back. The runtime reuses a dead goroutine's descriptor for
// the next goroutine it starts, which then passes for the worker's owner:
// Run from that outside goroutine runs f inline on the caller's goroutine
// (with the worker, beside its real owner) instead of queueing it.
func TestStandInIdentityNotReused(t *testing.T) {
	p := pool(t, scheduler.WithWorkers(2))
	defer p.Close()
	ctx := context.Background()
	var inline, runs atomic.Int64
	var stop atomic.Bool
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() {
			for !stop.Load() {
				_ = p.Run(ctx, func(w *scheduler.Worker) error {
					for range 20 {
						w.Block(func() {})
					}
					return nil
				})
			}
		})
	}
	for range 2000 {
		var inner sync.WaitGroup
		for range 4 {
			inner.Go(func() {
				g := goid()
				_ = p.Run(ctx, func(*scheduler.Worker) error {
					if goid() == g {
						inline.Add(1)
					}
					return nil
				})
				runs.Add(1)
			})
		}
		inner.Wait()
		if inline.Load() > 0 {
			break
		}
	}
	stop.Store(true)
	wg.Wait()
	if n := inline.Load(); n > 0 {
		t.Fatalf("Run from a goroutine outside the pool ran f inline on the caller's goroutine %d times in %d runs: "+
			"it passed for a worker's owner with a dead stand-in's identity", n, runs.Load())
	}
}
