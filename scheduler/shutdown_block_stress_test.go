package scheduler_test

import (
	"context"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/weftrt/weft/scheduler"
	"github.com/weftrt/weft/scope"
	"github.com/weftrt/weft/slots"
)

// Random Block, slotless Run and Broadcast from Block, Goexit and panics,
// with Shutdown and Close racing them: nothing hangs, no goroutine owns
// a worker it does not, and every count and slot is back at zero.
func TestShutdownStress(t *testing.T) {
	for iter := range 200 {
		var handled atomic.Int64
		p, err := scheduler.New(scheduler.WithWorkers(1+iter%3),
			scheduler.WithSupplier(slots.NewFixed(3)),
			scheduler.WithPanicHandler(func(*scheduler.Panic) { handled.Add(1) }))
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		var wg sync.WaitGroup
		for g := range 3 {
			wg.Go(func() {
				r := rand.New(rand.NewPCG(uint64(iter), uint64(g)))
				for range 5 {
					k := r.IntN(7)
					func() {
						defer func() { recover() }()
						_ = p.Run(ctx, func(w *scheduler.Worker) error {
							w.Block(func() {
								switch k {
								case 0:
									_ = p.Run(ctx, func(w *scheduler.Worker) error {
										w.Block(func() { runtime.Gosched() })

										return nil
									})
								case 1:
									_ = p.Broadcast(ctx, func(w *scheduler.Worker) {})
								case 2:
									_ = p.TrySpawn(func(*scheduler.Worker) { runtime.Goexit() })
								case 3:
									_ = scope.On(context.Background(), p, func(s *scope.Scope) {
										s.Spawn(func(s *scope.Scope) { runtime.Goexit() })
										s.Spawn(func(s *scope.Scope) {})
									})
								case 4:
									_ = p.Run(ctx, func(w *scheduler.Worker) error { panic("x") })
								case 5:
									_ = p.Run(ctx, func(w *scheduler.Worker) error {
										runtime.Goexit()
										return nil
									})
								case 6:
									_ = p.Broadcast(ctx, func(w *scheduler.Worker) { runtime.Goexit() })
								}
							})

							return nil
						})
					}()
				}
			})
		}
		done := make(chan struct{})
		go func() {
			sctx, cancel := context.WithCancel(ctx)
			if iter%2 == 0 {
				cancel()
			}
			for range iter % 5 {
				runtime.Gosched()
			}
			_ = p.Shutdown(sctx)
			cancel()
			wg.Wait()
			p.Close()
			close(done)
		}()
		select {
		case <-done:
		case <-time.After(60 * time.Second):
			buf := make([]byte, 1<<20)
			n := runtime.Stack(buf, true)
			t.Fatalf("hang\n%s", buf[:n])
		}
		if s := p.Stats(); s.Pending != 0 || s.Slots.InUse != 0 || s.Slots.Reserved != 0 {
			t.Fatalf("stats after close %+v", s)
		}
	}
}
