package work

import (
	"cmp"
	"math/rand/v2"
	"slices"

	"github.com/weftrt/weft/scheduler"
)

// sortGrain is the size below which a parallel sort sorts sequentially,
// and mergeGrain the size below which it merges sequentially.
const (
	sortGrain  = 1 << 16
	mergeGrain = 1 << 14
)

// RandomInts returns n pseudo-random int64s from a fixed seed.
func RandomInts(n int) []int64 {
	r := rand.New(rand.NewPCG(42, 54))
	xs := make([]int64, n)
	for i := range xs {
		xs[i] = r.Int64()
	}
	return xs
}

// SortWeft sorts xs with a parallel mergesort on the pool.
func SortWeft(w *scheduler.Worker, xs []int64) { Sort(Weft(w), xs) }

// SortGoroutines sorts xs with the same mergesort, forking goroutines.
func SortGoroutines(xs []int64) { Sort(Goroutines{}, xs) }

// Sort sorts xs with a parallel mergesort that forks through f. It
// allocates one scratch slice as long as xs.
func Sort(f Forker, xs []int64) {
	mergesort(f, xs, make([]int64, len(xs)), false)
}

// SortChecksum returns a position-weighted hash of xs, so that a sort
// that loses, duplicates or misplaces an element changes it.
func SortChecksum(xs []int64) uint64 {
	var h uint64
	for i, x := range xs {
		h += mix64(uint64(x) ^ uint64(i))
	}
	return h
}

// mergesort sorts src, leaving the result in buf if toBuf, else in src.
// The halves sort into the other array, so that the final merge lands
// where it must and no level copies back.
func mergesort(f Forker, src, buf []int64, toBuf bool) {
	if len(src) <= sortGrain {
		slices.Sort(src)
		if toBuf {
			copy(buf, src)
		}
		return
	}
	mid := len(src) / 2
	f.Fork(
		func(f Forker) { mergesort(f, src[:mid], buf[:mid], !toBuf) },
		func(f Forker) { mergesort(f, src[mid:], buf[mid:], !toBuf) })
	if toBuf {
		pmerge(f, src[:mid], src[mid:], buf)
	} else {
		pmerge(f, buf[:mid], buf[mid:], src)
	}
}

// pmerge merges sorted a and b into out, splitting large merges in two
// around the median of the larger input.
func pmerge(f Forker, a, b, out []int64) {
	if len(a) < len(b) {
		a, b = b, a
	}
	if len(a)+len(b) <= mergeGrain || len(b) == 0 {
		merge(a, b, out)
		return
	}
	i := len(a) / 2
	j, _ := slices.BinarySearchFunc(b, a[i], cmp.Compare[int64])
	f.Fork(
		func(f Forker) { pmerge(f, a[:i], b[:j], out[:i+j]) },
		func(f Forker) { pmerge(f, a[i:], b[j:], out[i+j:]) })
}

// merge merges sorted a and b into out. The loop is branch-free in its
// data (the comparison feeds conditional moves, not jumps), since on
// random input a branch on it mispredicts half the time.
func merge(a, b, out []int64) {
	i, j, k := 0, 0, 0
	for i < len(a) && j < len(b) {
		x, y := a[i], b[j]
		v, takeB := x, 0
		if y < x {
			v, takeB = y, 1
		}
		out[k] = v
		j += takeB
		i += 1 - takeB
		k++
	}
	k += copy(out[k:], a[i:])
	copy(out[k:], b[j:])
}
