package clock

import "time"

// CalibrateNow switches Now to the counter as its first call
// calibrationSpan after epoch does, waiting until then if it must, and
// reports whether it did (not where the kernel keeps time with another
// clock).
func CalibrateNow() bool {
	for since() < calibrationSpan {
		time.Sleep(time.Millisecond)
	}
	if claimed.CompareAndSwap(false, true) {
		calibrate()
	}
	return nsPerTick.Load() != 0
}
