package sleep

import "time"

// SetTestHookBeforeSleep installs f as the hook that runs just before a
// worker tries to sleep, and returns a function that removes it. Tests use
// it to widen the window in which a lost wakeup could happen.
func SetTestHookBeforeSleep(f func()) (restore func()) {
	testHookBeforeSleep = f
	return func() { testHookBeforeSleep = nil }
}

// SetClock replaces the clock s reads for the busy spin.
func SetClock(s *Sleep, now func() time.Duration) { s.now = now }

// HandingOff counts n more goroutines in Handoff's yield (n < 0: fewer).
func HandingOff(n int32) { handingOff.Add(n) }
