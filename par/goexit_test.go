package par_test

import (
	"context"
	"errors"
	"runtime"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/weftrt/weft/par"
	"github.com/weftrt/weft/scheduler"
)

func TestGoexitInLoops(t *testing.T) {
	p, err := scheduler.New(scheduler.WithWorkers(4), scheduler.WithHeartbeat(time.Nanosecond))
	require.NoError(t, err)
	defer p.Close()
	forms := map[string]func(w *scheduler.Worker, bad int, running *atomic.Int32){
		"ForRange": func(w *scheduler.Worker, bad int, running *atomic.Int32) {
			par.ForRange(w, 0, 5000, func(_ *scheduler.Worker, lo, hi int) {
				running.Add(1)
				defer running.Add(-1)
				for i := lo; i < hi; i++ {
					if i == bad {
						runtime.Goexit()
					}
				}
			}, par.MinLen(7))
		},
		"ForEachSeq": func(w *scheduler.Worker, bad int, running *atomic.Int32) {
			par.ForEachSeq(w, slices.Values(seqOf(5000)), func(i int) {
				running.Add(1)
				defer running.Add(-1)
				if i == bad {
					runtime.Goexit()
				}
			}, par.MinLen(7))
		},
	}
	for name, f := range forms {
		for _, bad := range []int{0, 3, 2500, 4999} {
			var running atomic.Int32
			var v any
			func() {
				defer func() { v = recover() }()
				_ = p.Run(context.Background(), func(w *scheduler.Worker) error {
					f(w, bad, &running)
					return nil
				})
			}()
			require.IsType(t, &scheduler.Panic{}, v, name)
			assert.True(t, errors.Is(v.(*scheduler.Panic), scheduler.ErrGoexit), name)
			assert.Zero(t, running.Load(), "%s bad=%d: a chunk still ran when the caller got the Goexit", name, bad)
		}
	}
}
