package peers_test

import (
	"math"
	"testing"

	"github.com/weftrt/weft/bench/contenders/internal/peers"
	"github.com/weftrt/weft/internal/work"
)

// BenchmarkLoops is bench's BenchmarkLoops for conc's iter.Map, which
// lives in this module; the names match, so benchstat can put the two
// outputs side by side.
func BenchmarkLoops(b *testing.B) {
	for _, c := range []struct {
		name string
		n    int
		k    work.LoopKernel
	}{
		{"uniform-10M", 10_000_000, work.Uniform},
		{"irregular-6k", 6000, work.Triangular},
		{"tiny-16", 16, work.Uniform},
		{"tiny-1000", 1000, work.Uniform},
	} {
		want := work.LoopSeq(c.n, c.k)
		b.Run(c.name+"/conc", func(b *testing.B) {
			b.ReportAllocs()
			start := work.CPUTime()
			var got float64
			for range b.N {
				got = peers.LoopConc(c.n, c.k)
			}
			b.ReportMetric(float64(work.CPUTime()-start)/float64(b.N), "cpu-ns/op")
			if math.Abs(got-want) > 1e-9*math.Max(1, math.Abs(want)) {
				b.Fatalf("got %v, want %v", got, want)
			}
		})
	}
}
