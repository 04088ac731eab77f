//go:build race

package join

// checkWorker: in race-detector builds, Join and Call check that the
// worker they are handed runs on the calling goroutine. A *Worker that
// escaped its task corrupts the worker's frame stack; the check costs a
// few nanoseconds, which race builds can afford and hot paths cannot.
const checkWorker = true
