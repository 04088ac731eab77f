//go:build unix

package work

import (
	"time"

	"golang.org/x/sys/unix"
)

// CPUTime returns the CPU time (user + system) this process has used so
// far, from getrusage(RUSAGE_SELF).
func CPUTime() time.Duration {
	var ru unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_SELF, &ru); err != nil {
		panic("weft/bench: getrusage: " + err.Error())
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
