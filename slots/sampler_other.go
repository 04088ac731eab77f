//go:build !linux

package slots

// NewSystemSampler returns a Sampler of the running system's figures. Only
// Linux has one; elsewhere it fails, and a ResourceBased supplier needs a
// Sampler of the caller's own.
func NewSystemSampler() (Sampler, error) {
	return nil, errNoFigures
}
