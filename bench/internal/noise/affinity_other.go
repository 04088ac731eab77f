//go:build !linux

package noise

// affinity is not read outside Linux: the probe watches the first
// runtime.NumCPU CPUs (and /proc/stat, which it reads, is Linux's too).
func affinity() []int { return nil }
