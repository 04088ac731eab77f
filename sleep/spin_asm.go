//go:build amd64 || arm64

package sleep

// spinWait executes the CPU's spin-wait hint (PAUSE on amd64, YIELD on
// arm64) n times, n > 0: a wait that does not load memory, and that on a
// core shared by two hardware threads leaves the other one its share.
// Implemented in spin_amd64.s and spin_arm64.s.
func spinWait(n uint32)
