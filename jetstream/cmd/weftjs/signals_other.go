//go:build !unix

package main

import "os"

// pauseSignals is empty where there is no SIGUSR1 or SIGUSR2 (Windows):
// the keys p and r pause and resume the worker there.
var pauseSignals []os.Signal

func isPause(os.Signal) bool  { return false }
func isResume(os.Signal) bool { return false }
