package scheduler

import "sync"

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
			panic("weft/scheduler: cannot start the default pool: " + err.Error())
		}
		p.isDefault = true
		defaultPool.pool = p
	})
	return defaultPool.pool
}
