package suite

import "time"

// SetJobTimeout shortens the wait for a lost job and returns a function
// that restores it.
func SetJobTimeout(d time.Duration) (restore func()) {
	old := jobTimeout
	jobTimeout = d
	return func() { jobTimeout = old }
}
