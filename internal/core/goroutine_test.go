package core

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestGoroutineIdentity: goroutine() is stable within a goroutine and
// differs between goroutines alive at the same time.
func TestGoroutineIdentity(t *testing.T) {
	me := goroutine()
	assert.NotZero(t, me)
	assert.Equal(t, me, goroutine())
	const n = 8
	ids := make([]uintptr, n)
	var started, release sync.WaitGroup
	started.Add(n)
	release.Add(1)
	for i := range n {
		go func() {
			ids[i] = goroutine()
			started.Done()
			release.Wait() // stay alive until every id is taken
		}()
	}
	started.Wait()
	seen := map[uintptr]bool{me: true}
	for _, id := range ids {
		assert.False(t, seen[id], "two live goroutines share identity %#x", id)
		seen[id] = true
	}
	release.Done()
}
