// Package par runs loops in parallel on a weft pool: ForRange and For over
// index ranges, ForEach, Map, Reduce, MapReduce and Filter over slices,
// ForEachSeq and ForEachSeq2 over iter.Seq and iter.Seq2, and value forms
// (ForRangeWith, ReduceRangeWith, and ForRangeWithOn, ReduceRangeWithOn
// from outside) for loops where an allocation counts.
//
// One naming rule gives every loop shape its forms: the shape (ForEach)
// for a task, with its *scheduler.Worker; Err after it (ForEachErr) for a
// body that returns an error, with a context first, stopping at the first
// error; On at the end (ForEachOn, ForEachErrOn) for a goroutine outside
// the pool, with a context and a pool (nil means scheduler.Default()), and
// a body that gets no worker. A nil context panics in every form.
//
//	// from a task, with its worker w:
//	par.ForEach(w, xs, func(i int, x *Item) { x.Score = score(x) })
//	// from anywhere else:
//	squares, err := par.MapOn(ctx, nil, xs, func(x int) int { return x * x })
//	err = par.ForEachErrOn(ctx, pool, files, func(i int, f *File) error { return f.Check() })
//
// Inside the pool, the chunk forms (ForRange, ForRangeErr, ReduceRange)
// hand their body the worker that runs the chunk, which a nested loop (or
// join, or scope) inside it must use: that is how loops nest, on the same
// workers. From outside, a loop whose body nests one is a task: enter with
// scheduler.Pool.Run and call the in-pool form there.
//
// A loop needs no tuning: it runs inline when it is short (16 elements,
// or a probe of its first elements finds the whole under 32 µs), and
// otherwise halves itself recursively, handing idle workers the largest
// ranges nobody has started. A small loop from outside the pool runs on
// the calling goroutine, so it does not pay the microsecond of entering
// the pool. MinLen and
// MaxLen bound the chunks for users who know their work. docs/loops.md
// tells how a loop is cut and what it costs.
//
// The value forms are for loops so short or so frequent that an
// allocation counts. Go puts a closure that captures variables on the
// heap when it is passed to any loop form, because another worker may run
// it: about 20 ns, more than a 16-element loop of cheap elements. A value
// form takes the loop's data as a value, env, beside a function that gets
// it as a parameter; a function that captures nothing (a top-level
// function, or a literal that uses only its parameters) costs nothing, so
// a loop that is not split allocates nothing at all, the trade join.Call
// makes against join.Join. env is copied when the loop splits: keep it
// small (a slice, a pointer, a struct of a few).
//
// Map writes f(xs[i]) to the i-th slot of its result. ReduceRange, Reduce
// and MapReduce combine chunk results in range order, as a tree: combine
// must be associative, not commutative, and identity neutral. The Err
// forms stop handing out chunks after the first error, or once their
// context ends, wait for the chunks already running, and return that
// error (or the context's cause, even when it ends in the last chunk). A
// panic in a body or in combine stops the loop the same way and is
// re-raised, as a *scheduler.Panic carrying the value and its stack.
//
// ForEachSeq pulls an iter.Seq on the calling worker, which hands batches
// of items to the pool (Rayon's par_bridge); items are visited in no
// particular order, the oldest batches first, with memory bounded.
package par
