//go:build !(linux && amd64)

package clock

// CalibrateNow reports false: Now reads the runtime's clock here.
func CalibrateNow() bool { return false }
