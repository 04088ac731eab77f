package contenders_test

import (
	"math"
	"testing"

	"github.com/weftrt/weft/bench"
	"github.com/weftrt/weft/bench/contenders"
)

// BenchmarkLoops is bench's BenchmarkLoops for conc's iter.Map, which
// lives in this module; the names match, so benchstat can put the two
// outputs side by side.
func BenchmarkLoops(b *testing.B) {
	for _, c := range []struct {
		name string
		n    int
		k    bench.LoopKernel
	}{
		{"uniform-10M", 10_000_000, bench.Uniform},
		{"irregular-6k", 6000, bench.Triangular},
		{"tiny-16", 16, bench.Uniform},
		{"tiny-1000", 1000, bench.Uniform},
	} {
		want := bench.LoopSeq(c.n, c.k)
		b.Run(c.name+"/conc", func(b *testing.B) {
			b.ReportAllocs()
			start := bench.CPUTime()
			var got float64
			for range b.N {
				got = contenders.LoopConc(c.n, c.k)
			}
			b.ReportMetric(float64(bench.CPUTime()-start)/float64(b.N), "cpu-ns/op")
			if math.Abs(got-want) > 1e-9*math.Max(1, math.Abs(want)) {
				b.Fatalf("got %v, want %v", got, want)
			}
		})
	}
}
