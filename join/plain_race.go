//go:build race

package join

import "github.com/weftrt/weft/scheduler"

// Plain is plain.go's Plain with the check race-detector builds make on
// every join: that w runs on the calling goroutine.
func Plain(w *scheduler.Worker) bool {
	if w == nil {
		return false
	}
	if !w.IsCurrent() {
		panic(errForeignWorker)
	}
	return engine(w).Direct()
}
