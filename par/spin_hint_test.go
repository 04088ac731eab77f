package par_test

import (
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/weftrt/weft/internal/core"
	"github.com/weftrt/weft/par"
	"github.com/weftrt/weft/scheduler"
)

// TestSplittingLoopRaisesTheSpinHint: while a loop that splits runs, its
// worker says so to idle workers (core.Worker.Looping: they spin a while
// before sleeping, for its forks); a loop the probe runs whole inline does
// not, nor does the worker once the loop has returned, or panicked.
func TestSplittingLoopRaisesTheSpinHint(t *testing.T) {
	onOne(t, func(w *scheduler.Worker) {
		var seen atomic.Bool
		par.ForRange(w, 0, 64, func(w *scheduler.Worker, lo, hi int) {
			if (*core.Worker)(w).Looping() {
				seen.Store(true)
			}
		}, par.MinLen(1)) // splits at once
		assert.True(t, seen.Load(), "set while the loop splits")
		assert.False(t, (*core.Worker)(w).Looping(), "cleared when it returns")

		seen.Store(false)
		par.ForRange(w, 0, 4, func(w *scheduler.Worker, lo, hi int) {
			if (*core.Worker)(w).Looping() {
				seen.Store(true)
			}
		})
		assert.False(t, seen.Load(), "a loop run inline splits nothing")

		assert.Panics(t, func() {
			par.ForRange(w, 0, 64, func(*scheduler.Worker, int, int) { panic("chunk") }, par.MinLen(1))
		})
		assert.False(t, (*core.Worker)(w).Looping(), "cleared after a panic")
	})
}
