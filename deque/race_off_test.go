//go:build !race

package deque_test

// raceEnabled reports whether the race detector is on; stress tests do less
// work under it, since it slows them down about tenfold.
const raceEnabled = false
