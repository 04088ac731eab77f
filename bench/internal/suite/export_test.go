package suite

import (
	"time"

	"github.com/weftrt/weft/internal/work"
	"github.com/weftrt/weft/scheduler"
)

// SetJobTimeout shortens the wait for a lost job and returns a function
// that restores it.
func SetJobTimeout(d time.Duration) (restore func()) {
	old := jobTimeout
	jobTimeout = d
	return func() { jobTimeout = old }
}

// CountedValues is a one-workload suite whose weft form (values) reports
// valuesForks forks after each run, and whose fork form forks once: for
// tests of which count CPU per fork divides by.
func CountedValues(valuesForks int) Suite {
	var got uint64
	k := &kernel{
		seq:         func() { got = 1 },
		fork:        func(f work.Forker) { f.Fork(func(work.Forker) {}, func(work.Forker) {}); got = 1 },
		values:      func(*scheduler.Worker) { got = 1 },
		valuesForks: func() int { return valuesForks },
		result:      func() uint64 { return got },
		want:        func() uint64 { return 1 },
		set:         func(v uint64) { got = v },
	}
	w := k.workload("counted", "a kernel whose weft form counts its own forks")
	return Suite{Name: "counted", BenchName: "Counted", workloads: func(Sizes) []*workload { return []*workload{w} }}
}

// LoopValues returns the weft form of the loop kernel over [0, n) with k,
// and the count of the forks its last run made.
func LoopValues(n int, k work.LoopKernel) (values func(*scheduler.Worker), forks func() int) {
	kk := loopKernel(n, k)
	return kk.values, kk.valuesForks
}
