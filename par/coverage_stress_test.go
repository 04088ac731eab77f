package par_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/weftrt/weft/par"
	"github.com/weftrt/weft/scheduler"
)

func TestStressCoverageAndOrder(t *testing.T) {
	p, err := scheduler.New(scheduler.WithWorkers(4), scheduler.WithHeartbeat(time.Nanosecond))
	require.NoError(t, err)
	defer p.Close()
	rng := rand.New(rand.NewPCG(1, 2))
	for iter := range 300 {
		n := []int{0, 1, 2, 15, 16, 17, 31, 33, 100, 255, 257, 1000, 4097}[rng.IntN(13)]
		lo := rng.IntN(2000) - 1000
		var opts []par.Option
		switch rng.IntN(4) {
		case 1:
			opts = append(opts, par.MinLen(1+rng.IntN(40)))
		case 2:
			opts = append(opts, par.MaxLen(1+rng.IntN(40)))
		case 3: // MinLen over MaxLen panics (TestMinLenOverMaxLenPanics)
			minLen := 1 + rng.IntN(10)
			opts = append(opts, par.MinLen(minLen), par.MaxLen(minLen+rng.IntN(10)))
		}
		spin := rng.IntN(3) == 0
		name := fmt.Sprintf("iter=%d n=%d lo=%d", iter, n, lo)
		require.NoError(t, p.Run(context.Background(), func(w *scheduler.Worker) error {
			v := make([]atomic.Int32, n)
			par.ForRange(w, lo, lo+n, func(w *scheduler.Worker, a, b int) {
				if a >= b {
					t.Errorf("%s: empty chunk [%d,%d)", name, a, b)
				}
				for i := a; i < b; i++ {
					if spin {
						x := 0
						for k := range 200 {
							x += k
						}
						_ = x
					}
					v[i-lo].Add(1)
				}
			}, opts...)
			for i := range v {
				if v[i].Load() != 1 {
					t.Fatalf("%s: index %d visited %d times", name, i+lo, v[i].Load())
				}
			}
			s := par.ReduceRange(w, lo, lo+n, "", func(_ *scheduler.Worker, a, b int) string {
				var sb strings.Builder
				for i := a; i < b; i++ {
					sb.WriteString(strconv.Itoa(i))
					sb.WriteByte(',')
				}
				return sb.String()
			}, func(a, b string) string { return a + b }, opts...)
			var want strings.Builder
			for i := lo; i < lo+n; i++ {
				want.WriteString(strconv.Itoa(i))
				want.WriteByte(',')
			}
			require.Equal(t, want.String(), s, name)
			xs := seqOf(n)
			f := par.Filter(w, xs, func(x int) bool { return x%3 == 0 }, opts...)
			for j, x := range f {
				require.Equal(t, 3*j, x, name)
			}
			r := par.Reduce(w, xs, -1, func(a, b int) int {
				if a == -1 {
					return b
				}
				return a*31 + b
			}, opts...)
			_ = r
			return nil
		}))
	}
}
