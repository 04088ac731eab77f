//go:build !amd64 && !arm64

package core

import "runtime"

// getg returns the calling goroutine's ID, parsed from the header that
// runtime.Stack writes ("goroutine 42 [running]:"). Goroutine IDs are never
// reused, so they serve as well as the descriptor address, at the cost of
// a stack walk.
func getg() uintptr {
	var buf [64]byte
	n := runtime.Stack(buf[:], false)
	var id uintptr
	for _, c := range buf[len("goroutine "):n] {
		if c < '0' || c > '9' {
			break
		}
		id = id*10 + uintptr(c-'0')
	}
	return id
}
