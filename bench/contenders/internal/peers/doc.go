// Package peers adds third-party pools to weftbench: ants, pond and
// conc. Its module, bench/contenders, is one of its own so that weft's
// go.mod names none of them; run it from that directory:
//
//	go run ./cmd/weftbench -contenders sequential,weft,goroutines,ants,pond,conc
//
// Each adapter uses its library the way its documentation suggests for
// the job at hand, and says where it had to choose.
package peers
