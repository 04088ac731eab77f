//go:build !(linux && amd64)

package clock

import "time"

// Now returns the time since the package's epoch: the runtime's monotonic
// clock. (On linux/amd64 it reads the time-stamp counter: see the package
// doc.)
func Now() time.Duration { return since() }
