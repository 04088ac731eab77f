package slots

import "fmt"

// maxUsage is the largest figure a reading may hold. Usage is a fraction
// of the process's allowance, a little above 1 at most; a figure a hundred
// times that is not a reading of usage, and fed to the controller it would
// swamp the per-slot load estimate for many decisions.
const maxUsage = 100

// sampleFault says why a reading was skipped.
type sampleFault uint8

const (
	sampleOK       sampleFault = iota
	sampleFailed               // the Sampler returned an error
	samplePanicked             // the Sampler panicked
	sampleGarbage              // the figures are not usage
)

// sampleChecked takes a reading from s and vets it, so that no Sampler
// can hurt the supplier: a panic is recovered (it would reach whichever
// reservation happened to take the reading, a caller that did nothing
// wrong), and figures that are NaN, infinite, negative or over maxUsage
// are refused (one NaN would make the load estimate NaN for good). Both
// come back as errors wrapping ErrBadSample.
func sampleChecked(s Sampler) (u Usage, fault sampleFault, err error) {
	defer func() {
		if p := recover(); p != nil {
			u, fault, err = Usage{}, samplePanicked, fmt.Errorf("%w: Sampler panicked: %v", ErrBadSample, p)
		}
	}()
	u, err = s.Sample()
	if err != nil {
		return Usage{}, sampleFailed, err
	}
	for _, f := range []struct {
		name string
		v    float64
	}{{"CPU", u.CPU}, {"Memory", u.Memory}} {
		if !(f.v >= 0 && f.v <= maxUsage) { // also refuses NaN
			return Usage{}, sampleGarbage, fmt.Errorf("%w: %s reading %v: want a finite fraction in [0, %d]", ErrBadSample, f.name, f.v, maxUsage)
		}
	}
	return u, sampleOK, nil
}
