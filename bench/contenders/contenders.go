// Package contenders adds third-party pools to weftbench: ants, pond and
// conc. It is a module of its own so that weft's go.mod names none of
// them; run it from this directory:
//
//	go run ./cmd/weftbench -contenders sequential,weft,goroutines,ants,pond,conc
//
// Each adapter uses its library the way its documentation suggests for
// the job at hand, and says where it had to choose.
package contenders

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
