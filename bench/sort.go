package bench

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"sync"

	"github.com/weftrt/weft/join"
	"github.com/weftrt/weft/scheduler"
)

// sortGrain is the size below which a parallel sort sorts sequentially,
// and mergeGrain the size below which it merges sequentially.
const (
	sortGrain  = 1 << 14
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

// forker runs two functions, possibly in parallel: the one thing the
// parallel mergesort needs from a contender.
type forker interface {
	fork(a, b func(forker))
}

// weftForker forks with join.Join on the current worker.
type weftForker struct{ w *scheduler.Worker }

func (f weftForker) fork(a, b func(forker)) {
	join.Join(f.w,
		func(w *scheduler.Worker) { a(weftForker{w}) },
		func(w *scheduler.Worker) { b(weftForker{w}) })
}

// goForker forks b onto a new goroutine.
type goForker struct{}

func (goForker) fork(a, b func(forker)) {
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		b(goForker{})
	}()
	a(goForker{})
	wg.Wait()
}

// SortWeft sorts xs with a parallel mergesort on the pool.
func SortWeft(w *scheduler.Worker, xs []int64) {
	mergesort(weftForker{w}, xs, make([]int64, len(xs)), false)
}

// SortGoroutines sorts xs with the same mergesort, forking goroutines.
func SortGoroutines(xs []int64) {
	mergesort(goForker{}, xs, make([]int64, len(xs)), false)
}

// mergesort sorts src, leaving the result in buf if toBuf, else in src.
// The halves sort into the other array, so that the final merge lands
// where it must and no level copies back.
func mergesort(f forker, src, buf []int64, toBuf bool) {
	if len(src) <= sortGrain {
		slices.Sort(src)
		if toBuf {
			copy(buf, src)
		}
		return
	}
	mid := len(src) / 2
	f.fork(
		func(f forker) { mergesort(f, src[:mid], buf[:mid], !toBuf) },
		func(f forker) { mergesort(f, src[mid:], buf[mid:], !toBuf) })
	if toBuf {
		pmerge(f, src[:mid], src[mid:], buf)
	} else {
		pmerge(f, buf[:mid], buf[mid:], src)
	}
}

// pmerge merges sorted a and b into out, splitting large merges in two
// around the median of the larger input.
func pmerge(f forker, a, b, out []int64) {
	if len(a) < len(b) {
		a, b = b, a
	}
	if len(a)+len(b) <= mergeGrain || len(b) == 0 {
		merge(a, b, out)
		return
	}
	i := len(a) / 2
	j, _ := slices.BinarySearchFunc(b, a[i], cmp.Compare[int64])
	f.fork(
		func(f forker) { pmerge(f, a[:i], b[:j], out[:i+j]) },
		func(f forker) { pmerge(f, a[i:], b[j:], out[i+j:]) })
}

func merge(a, b, out []int64) {
	i, j, k := 0, 0, 0
	for i < len(a) && j < len(b) {
		if b[j] < a[i] {
			out[k] = b[j]
			j++
		} else {
			out[k] = a[i]
			i++
		}
		k++
	}
	k += copy(out[k:], a[i:])
	copy(out[k:], b[j:])
}
