// Package clock is the monotonic clock that par's probe and leaves time
// their pieces with: nanoseconds since the package's epoch, read where the
// platform allows from the CPU's time-stamp counter rather than through
// the runtime, since a probe of a short loop is mostly its clock reads.
//
// On linux/amd64, where the kernel itself keeps time with the time-stamp
// counter (it checks at boot that the counter is invariant and in step
// across CPUs, and picks another clock source otherwise), Now reads the
// counter and scales it: about 11 ns a read on the 2-vCPU VM against 22
// ns for time.Since, which goes through the vDSO on the system stack. The
// scale is calibrated once, against the runtime's monotonic clock over
// the time since the epoch, the first time Now is called at least
// calibrationSpan after it; until then, and everywhere else, Now is
// time.Since(epoch). See docs/loops.md, The probe's clock.
package clock

import (
	"math"
	"sync/atomic"
	"time"
)

// epoch is the point that Now counts from.
var epoch = time.Now()

// since is the runtime's monotonic clock, counted from epoch: Now's
// reading where the counter is not used.
func since() time.Duration { return time.Since(epoch) }

// ReadCost is what one read of Now adds to a timing: the least difference
// of back-to-back reads, measured at init for the runtime's clock and at
// calibration for the counter. A timing of a piece of work that is not
// much longer than this says little about the work.
func ReadCost() time.Duration { return time.Duration(readCost.Load()) }

// readCost holds ReadCost's value. It is stored at init, and once more by
// the calibration that switches Now to the counter (a value a few
// nanoseconds off in between does no harm: it only tunes timings).
var readCost atomic.Int64

func init() { readCost.Store(int64(leastGap(since))) }

// leastGap returns the least of 16 differences of back-to-back reads of
// read: what one read costs, without the interruptions some of them see.
// On a clock coarser than a read it is 0.
func leastGap(read func() time.Duration) time.Duration {
	best := time.Duration(math.MaxInt64)
	prev := read()
	for range 16 {
		now := read()
		best = min(best, now-prev)
		prev = now
	}
	return max(best, 0)
}
