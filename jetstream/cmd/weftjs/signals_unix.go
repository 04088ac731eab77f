//go:build unix

package main

import (
	"os"
	"syscall"
)

// pauseSignals are the signals that pause (SIGUSR1) and resume (SIGUSR2)
// the worker.
var pauseSignals = []os.Signal{syscall.SIGUSR1, syscall.SIGUSR2}

func isPause(s os.Signal) bool  { return s == syscall.SIGUSR1 }
func isResume(s os.Signal) bool { return s == syscall.SIGUSR2 }
