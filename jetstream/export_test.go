package jetstream

import "time"

// ObserveThrottle makes f see every pause a throttled poll takes, until
// the returned function is called.
func ObserveThrottle(f func(time.Duration)) (stop func()) {
	testHookThrottle = f
	return func() { testHookThrottle = nil }
}
