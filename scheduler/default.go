package scheduler

import (
	"fmt"
	"runtime"
	"sync"
)

var defaultPool struct {
	once sync.Once
	pool *Pool
}

// Default returns the process-wide pool, creating it on first use with
// runtime.GOMAXPROCS(0) workers. It is never closed (Close and Shutdown
// panic on it); its idle workers sleep and burn no CPU.
func Default() *Pool {
	defaultPool.once.Do(func() {
		p, err := New(WithName("weft-default"))
		if err != nil {
			panic(fmt.Sprintf("weft/scheduler: cannot start the default pool with GOMAXPROCS=%d workers: %v "+
				"(want GOMAXPROCS 1..%d, or make a pool with New(WithWorkers(n)))", runtime.GOMAXPROCS(0), err, MaxWorkers))
		}
		p.isDefault = true
		defaultPool.pool = p
	})
	return defaultPool.pool
}
