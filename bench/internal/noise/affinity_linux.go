package noise

import "golang.org/x/sys/unix"

// affinity returns the CPUs in this process's affinity mask, or nil if it
// cannot be read.
func affinity() []int {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		return nil
	}
	var cpus []int
	for c := 0; len(cpus) < set.Count(); c++ {
		if set.IsSet(c) {
			cpus = append(cpus, c)
		}
	}
	return cpus
}
