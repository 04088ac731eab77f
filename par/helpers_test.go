package par_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/weftrt/weft/par"
	"github.com/weftrt/weft/scheduler"
)

// pools are the pools every loop test runs on: one worker (everything
// inline), and four with a 1 ns heartbeat, so that forks are published
// and stolen as often as the scheduler allows.
func pools(t *testing.T) map[string]*scheduler.Pool {
	t.Helper()
	one, err := scheduler.New(scheduler.WithWorkers(1))
	require.NoError(t, err)
	t.Cleanup(one.Close)
	four, err := scheduler.New(scheduler.WithWorkers(4), scheduler.WithHeartbeat(time.Nanosecond))
	require.NoError(t, err)
	t.Cleanup(four.Close)
	return map[string]*scheduler.Pool{"1-worker": one, "4-workers": four}
}

// lengths cover the inline path (at most DefaultInlineLen), its edge,
// and loops long enough to split many times.
var lengths = []int{0, 1, 7, par.DefaultInlineLen, par.DefaultInlineLen + 1, 256, 257, 1000, 10_007}

// each runs f for every pool and length as a subtest, on a worker.
func each(t *testing.T, f func(t *testing.T, w *scheduler.Worker, n int)) {
	for name, p := range pools(t) {
		for _, n := range lengths {
			t.Run(fmt.Sprintf("%s/n=%d", name, n), func(t *testing.T) {
				require.NoError(t, p.Run(context.Background(), func(w *scheduler.Worker) error {
					f(t, w, n)
					return nil
				}))
			})
		}
	}
}
