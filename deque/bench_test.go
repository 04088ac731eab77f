package deque_test

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/weftrt/weft/deque"
)

// BenchmarkPushPop measures one owner Push plus one Pop on a deque that
// already holds 64 elements, as in the middle of a recursion.
func BenchmarkPushPop(b *testing.B) {
	d := deque.New[int](0)
	v := ints(65)
	for i := range 64 {
		d.Push(&v[i])
	}
	b.ReportAllocs()
	for b.Loop() {
		d.Push(&v[64])
		d.Pop()
	}
}

// BenchmarkStealFull measures uncontended successful steals. The owner
// refills the deque in batches with the timer stopped; every timed Steal
// takes an element.
func BenchmarkStealFull(b *testing.B) {
	const batch = 1 << 14
	d := deque.New[int](batch)
	x := new(int)
	b.ReportAllocs()
	b.StopTimer()
	for n := 0; n < b.N; n += batch {
		for range min(batch, b.N-n) {
			d.Push(x)
		}
		b.StartTimer()
		for range min(batch, b.N-n) {
			if _, r := d.Steal(); r != deque.Success {
				b.Fatal("steal from a full deque failed:", r)
			}
		}
		b.StopTimer()
	}
}

// BenchmarkStealContended measures successful steals by GOMAXPROCS thieves
// (two on this machine) racing each other while an owner goroutine keeps the
// deque topped up to 4096 elements, popping now and then. One op is one
// element stolen, however many Steal calls it took: a thief that finds the
// deque empty yields so the owner, which shares the cores, can refill it.
// retries/op counts the Retry results (lost races).
func BenchmarkStealContended(b *testing.B) {
	d := new(deque.Deque[int])
	x := new(int)
	var stop atomic.Bool
	var wg sync.WaitGroup
	wg.Go(func() {
		for i := 0; !stop.Load(); i++ {
			switch {
			case d.Len() >= 4096:
				runtime.Gosched()
			case i%8 == 7:
				d.Pop()
			default:
				d.Push(x)
			}
		}
	})
	var retries atomic.Int64
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		var n int64
		for pb.Next() {
			for {
				_, r := d.Steal()
				if r == deque.Success {
					break
				}
				if r == deque.Retry {
					n++
				} else {
					runtime.Gosched()
				}
			}
		}
		retries.Add(n)
	})
	b.StopTimer()
	stop.Store(true)
	wg.Wait()
	b.ReportMetric(float64(retries.Load())/float64(b.N), "retries/op")
}

// BenchmarkInjector measures one Push plus one Pop from a single goroutine.
func BenchmarkInjector(b *testing.B) {
	var q deque.Injector[int]
	x := new(int)
	q.Push(x)
	b.ReportAllocs()
	for b.Loop() {
		q.Push(x)
		q.Pop()
	}
}

// BenchmarkInjectorParallel measures Push plus Pop from GOMAXPROCS
// goroutines at once.
func BenchmarkInjectorParallel(b *testing.B) {
	var q deque.Injector[int]
	x := new(int)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			q.Push(x)
			q.Pop()
		}
	})
}

// BenchmarkInjectorIsEmpty measures the idle workers' poll of an empty
// injector.
func BenchmarkInjectorIsEmpty(b *testing.B) {
	var q deque.Injector[int]
	b.ReportAllocs()
	for b.Loop() {
		if !q.IsEmpty() {
			b.Fatal("not empty")
		}
	}
}
