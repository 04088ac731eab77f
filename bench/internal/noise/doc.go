// Package noise tells whether the machine was busy outside this process
// while a measurement ran, so that the harness can flag the figure rather
// than print a speedup that a neighbour's compile job decided.
//
// It reads the busy ticks of the CPUs this process may run on from
// /proc/stat before and after a window, and subtracts what this process
// itself used in the window (getrusage). What is left ran on our CPUs but
// was not us: other processes, interrupts, and a hypervisor's steal.
//
// The kernel counts in ticks of 10ms per CPU, so the estimate is coarse:
// over a window of W seconds it is good to about 10ms/W of the CPUs, and
// on kernels that sample rather than measure CPU time (most, unless built
// with full dynticks accounting) only statistically so. A window is
// called noisy only when even its lower bound is over the threshold, and
// the harness keeps windows at least half a second long so that the bound
// is tight (runner.Options.MinTime).
package noise
