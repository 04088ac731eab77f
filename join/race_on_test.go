//go:build race

package join_test

// raceEnabled: the race detector's runtime allocates on some
// synchronization paths, so allocation counts are checked without it.
const raceEnabled = true
