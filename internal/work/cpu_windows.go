package work

import (
	"time"

	"golang.org/x/sys/windows"
)

// CPUTime returns the CPU time (user + kernel) this process has used so
// far, from GetProcessTimes.
func CPUTime() time.Duration {
	var creation, exit, kernel, user windows.Filetime
	if err := windows.GetProcessTimes(windows.CurrentProcess(), &creation, &exit, &kernel, &user); err != nil {
		panic("weft/bench: GetProcessTimes: " + err.Error())
	}
	// A Filetime counts 100 ns intervals.
	return time.Duration((filetime(kernel) + filetime(user)) * 100)
}

func filetime(f windows.Filetime) int64 { return int64(f.HighDateTime)<<32 | int64(f.LowDateTime) }
