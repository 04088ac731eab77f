//go:build !linux

package weftjs_test

import "errors"

var errNoAffinity = errors.New("setting CPU affinity is supported on Linux only")

func splitCPUs() (worker, server []int, err error) { return nil, nil, errNoAffinity }

func pinProcess([]int) (func() error, error) { return nil, errNoAffinity }
