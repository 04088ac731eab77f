package clock_test

import (
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/weftrt/weft/internal/clock"
)

// slack is how far a reading of Now may fall outside the two reads of the
// runtime's clock around it: the offset between the package's epoch and
// the test's reference is itself read from the two clocks.
const slack = 2 * time.Microsecond

// TestNowKeepsStepWithTheRuntimeClock reads Now between two readings of
// the runtime's monotonic clock, on several goroutines at once, and
// checks that it lies between them, up to slack, the offset's own
// framing, and a part in a hundred of the time since calibration (which
// this test does at once, over the little time since init, where the
// rate is least exact; TestRateScalesTheCounter checks the arithmetic
// exactly). A counter read without its scale is off by far more. Before
// calibration Now is the runtime's clock itself; after it, on
// linux/amd64 with the kernel keeping time with the counter, it is the
// counter.
func TestNowKeepsStepWithTheRuntimeClock(t *testing.T) {
	t.Logf("counter in use: %v", clock.CalibrateNow())
	// The package's epoch is a little before this reference: the offset
	// is read from both clocks, framed as the readings below are.
	ref := time.Now()
	var offset time.Duration
	window := time.Duration(1<<63 - 1)
	for range 10 {
		before := time.Since(ref)
		now := clock.Now()
		after := time.Since(ref)
		if after-before < window {
			window, offset = after-before, now-(before+after)/2
		}
	}
	calibrated := clock.Now()
	var wg sync.WaitGroup
	for range max(2, runtime.GOMAXPROCS(0)) {
		wg.Go(func() {
			for i := range 20_000 {
				before := time.Since(ref) + offset
				now := clock.Now()
				after := time.Since(ref) + offset
				tol := slack + window + (now-calibrated)/100
				if now < before-tol || now > after+tol {
					t.Errorf("read %d: Now() = %v, not within %v of [%v, %v]", i, now, tol, before, after)
					return
				}
				if i%1000 == 0 {
					runtime.Gosched() // let reads move between processors
				}
			}
		})
	}
	wg.Wait()
}

// TestNowMovesForward checks that a goroutine's reads of Now grow with the
// work between them: a million reads, each pair a little apart, none
// before the one read before it.
func TestNowMovesForward(t *testing.T) {
	clock.CalibrateNow()
	prev := clock.Now()
	for i := range 1_000_000 {
		now := clock.Now()
		if now < prev {
			t.Fatalf("read %d went back: %v after %v", i, now, prev)
		}
		prev = now
	}
}

// TestReadCostIsSmallAgainstAMillisecond checks that ReadCost is a cost of
// one read, not a reading of the clock: it is at least 0 and well under
// the millisecond that a reading would be long past by now.
func TestReadCostIsSmallAgainstAMillisecond(t *testing.T) {
	clock.CalibrateNow()
	if c := clock.ReadCost(); c < 0 || c >= time.Millisecond {
		t.Fatalf("ReadCost() = %v", c)
	}
}
