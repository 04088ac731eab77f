package weftjs_test

import (
	"errors"
	"fmt"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// splitCPUs splits the CPUs this process may run on in two halves, the
// first for the benchmark's worker and the second (the smaller, if odd)
// for its server.
func splitCPUs() (worker, server []int, err error) {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		return nil, nil, err
	}
	var cpus []int
	for c := 0; len(cpus) < set.Count(); c++ {
		if set.IsSet(c) {
			cpus = append(cpus, c)
		}
	}
	if len(cpus) < 2 {
		return nil, nil, fmt.Errorf("needs two usable CPUs, one for the server and one for the worker; has %d", len(cpus))
	}
	half := (len(cpus) + 1) / 2
	return cpus[:half], cpus[half:], nil
}

// pinProcess pins every thread of this process to cpus, and returns a
// function that gives every thread the set the calling thread had
// before.
func pinProcess(cpus []int) (restore func() error, err error) {
	var old, set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &old); err != nil {
		return nil, err
	}
	for _, c := range cpus {
		set.Set(c)
	}
	if err := setAllThreads(&set); err != nil {
		return nil, err
	}
	return func() error { return setAllThreads(&old) }, nil
}

// setAllThreads gives every thread of this process the CPU set. A
// thread made while it works inherits the set of the thread that made
// it, which may not have been set yet; so it goes over the threads again
// until a pass finds none it had not set. Then every thread that
// exists, and every thread made after, has the set.
func setAllThreads(set *unix.CPUSet) error {
	done := map[int]bool{}
	for {
		ents, err := os.ReadDir("/proc/self/task")
		if err != nil {
			return err
		}
		fresh := false
		for _, e := range ents {
			tid, err := strconv.Atoi(e.Name())
			if err != nil || done[tid] {
				continue
			}
			fresh = true
			done[tid] = true
			if err := unix.SchedSetaffinity(tid, set); err != nil && !errors.Is(err, unix.ESRCH) {
				return fmt.Errorf("setting the CPUs of thread %d: %w", tid, err)
			}
		}
		if !fresh {
			return nil
		}
	}
}
