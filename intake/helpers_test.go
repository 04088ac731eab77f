package intake_test

import (
	"strconv"
	"testing"
	"time"

	"github.com/weftrt/weft/intake"
	"github.com/weftrt/weft/intake/intaketest"
	"github.com/weftrt/weft/scheduler"
)

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

func newPool(t testing.TB, workers int) *scheduler.Pool { return intaketest.NewPool(t, workers) }

func newWorker(t testing.TB, cfg intake.Config) *intake.Worker {
	return intaketest.NewWorker(t, cfg, 10*time.Second)
}

func eventually(t testing.TB, d time.Duration, cond func() bool, what string, args ...any) {
	t.Helper()
	intaketest.Eventually(t, d, cond, what, args...)
}
