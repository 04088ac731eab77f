package work

import (
	"sync"

	"github.com/weftrt/weft/join"
	"github.com/weftrt/weft/scheduler"
)

// FibForks returns how many forks computing fib(n) makes when it forks at
// every level above cutoff (0 forks at every level with n >= 2).
func FibForks(n, cutoff int) int {
	if n < 2 || n <= cutoff {
		return 0
	}
	return 1 + FibForks(n-1, cutoff) + FibForks(n-2, cutoff)
}

// FibSeq is the sequential baseline.
func FibSeq(n int) int {
	if n < 2 {
		return n
	}
	return FibSeq(n-1) + FibSeq(n-2)
}

// FibValues forks with join.Call at every level, allocating nothing.
func FibValues(w *scheduler.Worker, n int) int {
	if n < 2 {
		return n
	}
	a, b := join.Call(w, FibValues, n-1, n-2)
	return a + b
}

// FibPlain is FibValues in the form docs/forks.md recommends for a hot
// recursion: join.Plain first, and the two calls made directly when it
// says so.
func FibPlain(w *scheduler.Worker, n int) int {
	if n < 2 {
		return n
	}
	if join.Plain(w) {
		return FibPlain(w, n-1) + FibPlain(w, n-2)
	}
	a, b := join.Call(w, FibPlain, n-1, n-2)
	return a + b
}

// FibPlainJoin is FibJoin at every level behind join.Plain: its closures,
// and the variables they assign, are made only at the joins that may
// fork.
func FibPlainJoin(w *scheduler.Worker, n int) int {
	if n < 2 {
		return n
	}
	if join.Plain(w) {
		return FibPlainJoin(w, n-1) + FibPlainJoin(w, n-2)
	}
	var a, b int
	join.Join(w,
		func(w *scheduler.Worker) { a = FibPlainJoin(w, n-1) },
		func(w *scheduler.Worker) { b = FibPlainJoin(w, n-2) })
	return a + b
}

// FibJoin forks with join.Join (closures) at every level above cutoff.
func FibJoin(w *scheduler.Worker, n, cutoff int) int {
	if n < 2 || n <= cutoff {
		return FibSeq(n)
	}
	var a, b int
	join.Join(w,
		func(w *scheduler.Worker) { a = FibJoin(w, n-1, cutoff) },
		func(w *scheduler.Worker) { b = FibJoin(w, n-2, cutoff) })
	return a + b
}

// FibBoth forks with join.Both (closures that return their results) at
// every level above cutoff: one allocation per fork where FibJoin makes
// two.
func FibBoth(w *scheduler.Worker, n, cutoff int) int {
	if n < 2 || n <= cutoff {
		return FibSeq(n)
	}
	a, b := join.Both(w,
		func(w *scheduler.Worker) int { return FibBoth(w, n-1, cutoff) },
		func(w *scheduler.Worker) int { return FibBoth(w, n-2, cutoff) })
	return a + b
}

// FibGoroutines forks with a goroutine and a sync.WaitGroup at every level
// above cutoff.
func FibGoroutines(n, cutoff int) int {
	if n < 2 || n <= cutoff {
		return FibSeq(n)
	}
	var a int
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		a = FibGoroutines(n-1, cutoff)
	}()
	b := FibGoroutines(n-2, cutoff)
	wg.Wait()
	return a + b
}

// FibFork forks through f at every level above cutoff.
func FibFork(f Forker, n, cutoff int) int {
	if n < 2 || n <= cutoff {
		return FibSeq(n)
	}
	var a, b int
	f.Fork(
		func(f Forker) { a = FibFork(f, n-1, cutoff) },
		func(f Forker) { b = FibFork(f, n-2, cutoff) })
	return a + b
}

// FibCutoffValues is FibValues with a cutoff: it forks with join.Call at
// every level above cutoff and recurses sequentially below.
func FibCutoffValues(w *scheduler.Worker, n, cutoff int) int {
	return fibCutoff(w, fibArg{n, cutoff})
}

// fibArg carries the cutoff down by value, since join.Call passes one
// argument.
type fibArg struct{ n, cutoff int }

func fibCutoff(w *scheduler.Worker, x fibArg) int {
	if x.n < 2 || x.n <= x.cutoff {
		return FibSeq(x.n)
	}
	a, b := join.Call(w, fibCutoff, fibArg{x.n - 1, x.cutoff}, fibArg{x.n - 2, x.cutoff})
	return a + b
}
