package scheduler_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/weftrt/weft/scheduler"
)

// TestStressShutdownRaces submits from many goroutines while the pool
// shuts down with a deadline that may or may not pass. Every Run must
// return, either having run its task (nil) or without running it
// (ErrClosed), and Close must return: nothing accepted is lost.
func TestStressShutdownRaces(t *testing.T) {
	rounds := 200
	if testing.Short() {
		rounds = 30
	}
	for i := range rounds {
		p, err := scheduler.New(scheduler.WithWorkers(1 + i%3))
		require.NoError(t, err)
		var wg sync.WaitGroup
		var ran, refused, accepted atomic.Int64
		for range 4 {
			wg.Go(func() {
				for {
					var did atomic.Bool
					err := p.Run(context.Background(), func(*scheduler.Worker) error {
						time.Sleep(time.Duration(i%4) * 20 * time.Microsecond)
						did.Store(true)
						return nil
					})
					switch {
					case err == nil:
						accepted.Add(1)
						assert.True(t, did.Load(), "Run returned nil without running")
						ran.Add(1)
					case errors.Is(err, scheduler.ErrClosed):
						assert.False(t, did.Load(), "Run reported ErrClosed but ran")
						refused.Add(1)
						return
					default:
						t.Errorf("unexpected error %v", err)
						return
					}
				}
			})
		}
		time.Sleep(time.Duration(i%5) * 100 * time.Microsecond)
		ctx, cancel := context.WithTimeout(context.Background(), time.Duration(i%3)*50*time.Microsecond)
		_ = p.Shutdown(ctx)
		cancel()
		p.Close()
		wg.Wait()
		assert.EqualValues(t, 4, refused.Load())
		assert.Equal(t, accepted.Load(), ran.Load())
		assert.Zero(t, p.Stats().Pending)
	}
}
