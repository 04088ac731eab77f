//go:build linux && amd64

package clock

import (
	"math"
	"os"
	"strings"
	"sync/atomic"
	"time"
)

// Now returns the time since the package's epoch: the time-stamp counter,
// scaled, once calibrated; the runtime's monotonic clock before that, or
// if the kernel does not keep time with the counter. Readings on any
// goroutines agree with the runtime's clock to within a few parts per
// million of the time since epoch; where the reading switches to the
// counter, one difference of two readings may be a few tens of
// nanoseconds off, even below zero.
func Now() time.Duration {
	if scale := nsPerTick.Load(); scale != 0 {
		return scaled(ticks(), math.Float64frombits(scale))
	}
	return uncalibrated()
}

// ticks reads the CPU's time-stamp counter (RDTSC; tsc_linux_amd64.s). The
// read is not fenced: it may run a few dozen cycles ahead of the work
// before it, which a timing of microseconds does not see, and a fence
// (LFENCE or RDTSCP) would cost about 7 ns of the 11 a read takes.
func ticks() uint64

// origin pairs a counter reading with the runtime's clock read around
// it, at init: the point the counter's readings are scaled from.
var origin = pairNow()

// pair is a reading of the counter and the runtime's clock at the same
// moment, to within the two clock reads that frame it.
type pair struct {
	ticks uint64
	mono  time.Duration
}

// pairNow reads the counter between two reads of the runtime's clock,
// three times, and keeps the tightest framing: a read interrupted between
// the two would tie the counter to the wrong moment.
func pairNow() pair {
	var best pair
	window := time.Duration(math.MaxInt64)
	for range 3 {
		before := since()
		t := ticks()
		after := since()
		if after-before < window {
			window, best = after-before, pair{t, before + (after-before)/2}
		}
	}
	return best
}

// scaled turns a counter reading into nanoseconds since epoch.
func scaled(t uint64, nsPerTick float64) time.Duration { return origin.at(t, nsPerTick) }

// at is the runtime clock's reading when the counter reads t, at
// nsPerTick nanoseconds a tick from the pair o.
func (o pair) at(t uint64, nsPerTick float64) time.Duration {
	return o.mono + time.Duration(float64(int64(t-o.ticks))*nsPerTick)
}

// rate is the counter's period in nanoseconds between the pairs from and
// to, and whether it is believable: the counter moved forward, at 10 MHz
// to 100 GHz.
func rate(from, to pair) (nsPerTick float64, ok bool) {
	n := int64(to.ticks - from.ticks)
	if n <= 0 {
		return 0, false
	}
	nsPerTick = float64(to.mono-from.mono) / float64(n)
	return nsPerTick, nsPerTick > 0.01 && nsPerTick < 100
}

// calibrationSpan is how long after epoch the counter's rate is measured:
// over 10 ms the framing of the two pairs (tens of nanoseconds each) puts
// the rate off by a few parts per million.
const calibrationSpan = 10 * time.Millisecond

var (
	// nsPerTick is the counter's period in nanoseconds (float64 bits); 0
	// until calibrate has stored it, and for good where the counter is
	// not used. It is written once, after readCost; a reader that loads
	// it non-zero reads the counter from then on. The atomic store and
	// load order that write before the reads that use it (origin is
	// written at init, before any goroutine could load nsPerTick).
	nsPerTick atomic.Uint64
	// claimed is set by the one call that calibrates (a CAS from false),
	// so that the kernel's clock source is read once: the other calls
	// read the runtime's clock meanwhile, and after a refusal. Nothing
	// is published through it (nsPerTick publishes the rate), so the
	// CAS needs no ordering beyond its own atomicity: of two calls that
	// both load false, one CAS wins.
	claimed atomic.Bool
)

// uncalibrated is Now before the counter is in use: the runtime's clock,
// and, on the first call calibrationSpan or more after epoch, the
// calibration.
func uncalibrated() time.Duration {
	d := since()
	if d >= calibrationSpan && !claimed.Load() && claimed.CompareAndSwap(false, true) {
		calibrate()
	}
	return d
}

// calibrate measures the counter's period against the runtime's clock
// over the time since epoch and stores it, if the kernel keeps time with
// the counter and the period is believable (10 MHz to 100 GHz).
func calibrate() {
	if !kernelUsesTSC() {
		return
	}
	scale, ok := rate(origin, pairNow())
	if !ok {
		return
	}
	readCost.Store(int64(leastGap(func() time.Duration { return scaled(ticks(), scale) })))
	nsPerTick.Store(math.Float64bits(scale))
}

// clockSourceFile names the clock the kernel keeps time with.
const clockSourceFile = "/sys/devices/system/clocksource/clocksource0/current_clocksource"

// kernelUsesTSC reports whether the kernel keeps time with the time-stamp
// counter. It does so only once it has found the counter invariant (its
// rate does not change with the CPU's) and in step across CPUs; under a
// hypervisor whose counter it does not trust it uses the hypervisor's
// clock instead ("kvm-clock", "hyperv_clocksource_tsc_page", "xen"), and
// so does Now.
func kernelUsesTSC() bool {
	b, err := os.ReadFile(clockSourceFile)
	return err == nil && strings.TrimSpace(string(b)) == "tsc"
}
