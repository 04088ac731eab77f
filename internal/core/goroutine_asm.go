//go:build amd64 || arm64

package core

// getg returns the address of the calling goroutine's runtime descriptor.
// Implemented in goroutine_amd64.s and goroutine_arm64.s.
func getg() uintptr
