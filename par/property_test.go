package par_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/weftrt/weft/par"
	"github.com/weftrt/weft/scheduler"
)

// TestPropertyFormsMatchSequential runs every loop form, and the On
// forms, over random ranges (empty, one element, the inline edge, near
// math.MaxInt and math.MinInt) and random MinLen and MaxLen, and checks
// each against the sequential loop: every index visited once, no empty
// chunk, reductions combined in range order (a combine that panics on
// segments out of order, so not commutative).
func TestPropertyFormsMatchSequential(t *testing.T) {
	p, err := scheduler.New(scheduler.WithWorkers(3), scheduler.WithHeartbeat(time.Nanosecond))
	require.NoError(t, err)
	defer p.Close()
	rng := rand.New(rand.NewPCG(3, 7))
	for iter := range 200 {
		n := []int{0, 1, 2, 3, 15, 16, 17, 18, 31, 32, 33, 63, 64, 65, 100, 255, 256, 257, 1000, 3001}[rng.IntN(20)]
		var lo int
		switch rng.IntN(4) {
		case 0:
			lo = math.MaxInt - n
		case 1:
			lo = math.MinInt
		default:
			lo = rng.IntN(200) - 100
		}
		var opts []par.Option
		// Lengths below 1, and MinLen over MaxLen, panic
		// (TestBadLengthOptionsPanic, TestMinLenOverMaxLenPanics).
		minLen := 1 + rng.IntN(10)
		maxLen := minLen + rng.IntN(10)
		switch rng.IntN(5) {
		case 1:
			opts = append(opts, par.MinLen(1+rng.IntN(40)))
		case 2:
			opts = append(opts, par.MaxLen(1+rng.IntN(40)))
		case 3:
			opts = append(opts, par.MinLen(minLen), par.MaxLen(maxLen))
		case 4:
			opts = append(opts, par.MaxLen(maxLen), par.MinLen(minLen))
		}
		name := fmt.Sprintf("iter=%d n=%d lo=%d", iter, n, lo)
		hi := lo + n
		xs := make([]int, n)
		for i := range xs {
			xs[i] = rng.IntN(1000)
		}
		type pr struct {
			a, b int
			ok   bool
		} // segment [a,b) concatenation, non-commutative
		comb := func(x, y pr) pr {
			if !x.ok {
				return y
			}
			if !y.ok {
				return x
			}
			if x.b != y.a {
				panic(fmt.Sprintf("out of order %v %v", x, y))
			}
			return pr{x.a, y.b, true}
		}
		spin := rng.IntN(4) == 0
		burn := func() {
			if spin {
				x := 0
				for k := range 300 {
					x += k
				}
				_ = x
			}
		}
		require.NoError(t, p.Run(context.Background(), func(w *scheduler.Worker) error {
			v := make([]atomic.Int32, n)
			par.ForRange(w, lo, hi, func(_ *scheduler.Worker, a, b int) {
				require.Less(t, a, b, name)
				for i := a; i < b; i++ {
					burn()
					v[i-lo].Add(1)
				}
			}, opts...)
			par.ForRangeWith(w, v, lo, hi, func(_ *scheduler.Worker, v []atomic.Int32, a, b int) {
				for i := a; i < b; i++ {
					v[i-lo].Add(1)
				}
			}, opts...)
			par.For(w, n, func(i int) { burn(); v[i].Add(1) }, opts...)
			par.ForEach(w, xs, func(i int, x *int) { require.Equal(t, xs[i], *x); v[i].Add(1) }, opts...)
			require.NoError(t, par.ForErr(context.Background(), w, n, func(i int) error { v[i].Add(1); return nil }, opts...))
			require.NoError(t, par.ForRangeErr(context.Background(), w, lo, hi, func(_ *scheduler.Worker, a, b int) error {
				for i := a; i < b; i++ {
					v[i-lo].Add(1)
				}
				return nil
			}, opts...))
			for i := range v {
				require.EqualValues(t, 6, v[i].Load(), "%s idx %d", name, i)
			}
			want := pr{}
			if n > 0 {
				want = pr{lo, hi, true}
			}
			got := par.ReduceRange(w, lo, hi, pr{}, func(_ *scheduler.Worker, a, b int) pr {
				burn()
				return pr{a, b, true}
			}, comb, opts...)
			require.Equal(t, want, got, name)
			got = par.ReduceRangeWith(w, 0, lo, hi, pr{}, func(_ *scheduler.Worker, _ int, a, b int) pr { return pr{a, b, true} }, comb, opts...)
			require.Equal(t, want, got, name)
			// Reduce / MapReduce with non-commutative string concat
			strs := make([]string, n)
			var ref string
			for i := range strs {
				strs[i] = strconv.Itoa(xs[i]) + ","
				ref += strs[i]
			}
			require.Equal(t, ref, par.Reduce(w, strs, "", func(a, b string) string { return a + b }, opts...), name)
			require.Equal(t, ref, par.MapReduce(w, xs, "", func(x int) string { return strconv.Itoa(x) + "," }, func(a, b string) string { return a + b }, opts...), name)
			m := par.Map(w, xs, func(x int) int { return 2 * x }, opts...)
			me, err := par.MapErr(context.Background(), w, xs, func(x int) (int, error) { return 2 * x, nil }, opts...)
			require.NoError(t, err)
			f := par.Filter(w, xs, func(x int) bool { return x%3 == 0 }, opts...)
			var fr []int
			for i, x := range xs {
				require.Equal(t, 2*x, m[i])
				require.Equal(t, 2*x, me[i])
				if x%3 == 0 {
					fr = append(fr, x)
				}
			}
			require.Equal(t, fr, f, name)
			// errors: the returned error is one that occurred
			if n > 0 {
				bad := rng.IntN(n)
				e1 := errors.New("e1")
				var ran atomic.Int64
				err := par.ForErr(context.Background(), w, n, func(i int) error {
					ran.Add(1)
					if i >= bad && i%2 == bad%2 {
						return fmt.Errorf("at %d: %w", i, e1)
					}
					return nil
				}, opts...)
				require.ErrorIs(t, err, e1, name)
				cnt := 0
				err = par.ForEachSeqErr(context.Background(), w, slices.Values(xs), func(x int) error { return nil }, opts...)
				require.NoError(t, err)
				var seen atomic.Int64
				par.ForEachSeq(w, slices.Values(xs), func(x int) { seen.Add(int64(x) + 1) }, opts...)
				for _, x := range xs {
					cnt += x + 1
				}
				require.EqualValues(t, cnt, seen.Load(), name)
			}
			return nil
		}))
		// On forms
		want := pr{}
		if n > 0 {
			want = pr{lo, hi, true}
		}
		got, err := par.ReduceRangeOn(context.Background(), p, lo, hi, pr{}, func(a, b int) pr {
			require.Less(t, a, b, name)
			return pr{a, b, true}
		}, comb, opts...)
		require.NoError(t, err)
		require.Equal(t, want, got, name)
		strs := ""
		for _, x := range xs {
			strs += strconv.Itoa(x) + ","
		}
		ms, err := par.MapReduceOn(context.Background(), p, xs, "", func(x int) string { return strconv.Itoa(x) + "," }, func(a, b string) string { return a + b }, opts...)
		require.NoError(t, err)
		require.Equal(t, strs, ms, name)
		var cnt atomic.Int64
		require.NoError(t, par.ForOn(context.Background(), p, n, func(i int) { cnt.Add(1) }, opts...))
		require.NoError(t, par.ForEachOn(context.Background(), p, xs, func(i int, x *int) { cnt.Add(1) }, opts...))
		require.EqualValues(t, 2*n, cnt.Load())
		mo, err := par.MapOn(context.Background(), p, xs, func(x int) int { return x + 1 }, opts...)
		require.NoError(t, err)
		require.Len(t, mo, n)
	}
}
