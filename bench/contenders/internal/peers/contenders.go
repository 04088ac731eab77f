package peers

import (
	"sync"

	"github.com/weftrt/weft/bench/internal/contender"
)

var once sync.Once

// Register adds ants, pond and conc to the harness's contenders, after the
// built-in ones. Calling it again does nothing.
func Register() {
	once.Do(func() {
		contender.Register(ants)
		contender.Register(pond)
		contender.Register(conc)
	})
}
