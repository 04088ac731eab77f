package par_test

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/weftrt/weft/par"
	"github.com/weftrt/weft/scheduler"
)

// TestProbeStopsAtCancel: once ctx is cancelled no new chunk starts, and
// that includes the probe's pieces and the rest that the probe runs
// inline. Before, the probe looked only at the stop flag, which the
// AfterFunc callback raises from a goroutine of its own, usually after
// the probe had already run the whole rest of the loop: the loop ran to
// its end after the cancellation and returned nil.
func TestProbeStopsAtCancel(t *testing.T) {
	p, err := scheduler.New(scheduler.WithWorkers(1))
	require.NoError(t, err)
	defer p.Close()
	// Whether the probe reaches its next piece before the callback runs
	// depends on how long cancel takes (the race detector slows it), so
	// each case runs a few times.
	for _, n := range []int{par.DefaultInlineLen + 1, 40, 300} {
		for _, kind := range slices.Repeat([]string{"WithCancel", "own Context"}, 10) {
			require.NoError(t, p.Run(context.Background(), func(w *scheduler.Worker) error {
				var ctx context.Context
				var cancel context.CancelFunc
				if kind == "WithCancel" {
					ctx, cancel = context.WithCancel(context.Background())
				} else {
					ctx, cancel = newClosingContext()
				}
				defer cancel()
				var chunks atomic.Int64
				err := par.ForRangeErr(ctx, w, 0, n, func(_ *scheduler.Worker, lo, hi int) error {
					if chunks.Add(1) == 1 {
						cancel()
					}
					return nil
				})
				assert.ErrorIs(t, err, context.Canceled, "%s n=%d", kind, n)
				assert.EqualValues(t, 1, chunks.Load(), "%s n=%d: a chunk started after the cancellation", kind, n)
				return nil
			}))
		}
	}
}

// closingContext is a Context of the caller's own, as the context package
// allows: cancelling it only closes its Done channel, which is cheap, so
// the probe gets past the cancellation even under the race detector.
type closingContext struct {
	context.Context
	done     chan struct{}
	once     sync.Once
	canceled atomic.Bool
}

func newClosingContext() (context.Context, context.CancelFunc) {
	c := &closingContext{Context: context.Background(), done: make(chan struct{})}
	return c, func() {
		c.once.Do(func() {
			c.canceled.Store(true)
			close(c.done)
		})
	}
}

func (c *closingContext) Done() <-chan struct{} { return c.done }

func (c *closingContext) Err() error {
	if c.canceled.Load() {
		return context.Canceled
	}
	return nil
}
