//go:build !amd64 && !arm64

package sleep

// spinWait is spin_asm.go's, for a CPU without a spin-wait hint written
// here: n loads of a word nothing writes.
func spinWait(n uint32) {
	for range n {
		pauseWord.Load()
	}
}
