package runner

import (
	"runtime"
	"time"

	"github.com/weftrt/weft/internal/work"
)

// Span is what one timed region cost.
type Span struct {
	Wall   time.Duration // from the monotonic clock
	CPU    time.Duration // user + system time of the whole process (getrusage)
	Allocs uint64        // heap objects allocated by the whole process
}

// Time runs f and measures it. The CPU and allocation readings enclose
// the clock readings, so their few hundred nanoseconds of overhead fall
// outside the wall time and inside the CPU time, where they are noise
// against any workload worth measuring.
//
// The CPU time is the process's, not the calling goroutine's: a pool's
// workers and the runtime's garbage collector work for the workload too,
// and a scheduler that spins while it waits should pay for it here.
func Time(f func()) Span { return realClock.time(f) }

// clock holds the clocks the runner reads, so that tests can substitute
// ones that move only when told to and assert on exact durations instead
// of on how busy the machine happened to be.
type clock struct {
	now func() time.Time
	cpu func() time.Duration
}

var realClock = clock{now: time.Now, cpu: work.CPUTime}

func (c clock) time(f func()) Span {
	a0 := allocs()
	c0 := c.cpu()
	t0 := c.now()
	f()
	wall := c.now().Sub(t0)
	cpu := c.cpu() - c0
	return Span{Wall: wall, CPU: cpu, Allocs: allocs() - a0}
}

// allocs returns the heap objects allocated so far. It stops the world,
// which runtime/metrics would not, but runtime/metrics counts small
// objects a span at a time, too coarsely to tell zero allocations per run
// from a few hundred. The readings fall outside the timed region.
func allocs() uint64 {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.Mallocs
}
