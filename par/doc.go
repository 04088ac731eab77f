// Package par runs loops in parallel on a weft pool: ForRange and For over
// index ranges, ForEach, Map, Reduce, MapReduce and Filter over slices,
// ForEachSeq and ForEachSeq2 over iter.Seq and iter.Seq2, and value forms
// (ForRangeWith, ReduceRangeWith) for loops where an allocation counts.
//
// One naming rule gives every loop shape its forms: the shape (ForEach)
// for a task, with its *scheduler.Worker; Err after it (ForEachErr) for a
// body that returns an error, with a context first, stopping at the first
// error; On at the end (ForEachOn, ForEachErrOn) for a goroutine outside
// the pool, with a context and a pool.
//
// Like join and scope, every loop comes in two forms: one for a task,
// which takes the *scheduler.Worker the task received, and an On form for
// a goroutine outside the pool, which takes a context.Context and a pool
// (nil means scheduler.Default()); the With forms have no On form, since
// entering the pool costs microseconds, a hundred times the allocation
// they save. The chunk forms (ForRange, ForRangeErr,
// ReduceRange) hand their body the worker that runs the chunk, so that a
// loop nests inside a loop: the inner loop runs on the same workers,
// through the same fork-join machinery, and nested loops never start more
// goroutines than the pool has workers.
//
// # Splitting
//
// A loop is cut in three steps, with no tuning needed for bodies of any
// cost; MinLen and MaxLen override them for users who know their work.
//
//  1. Inline. A loop of at most DefaultInlineLen (16) elements, or MinLen
//     if set, runs as one chunk on the calling worker: no fork, no clock
//     read, nothing allocated by this package (Map's result and Filter's
//     kept elements aside). A body that captures variables is another
//     matter: Go puts it on the heap when it is passed to any loop form,
//     because a thief may run it, and that allocation is most of what a
//     tiny loop costs over a plain one (docs/loops.md). The With forms
//     take the data as a value beside a function that captures nothing,
//     as join.Call does for forks, and so allocate nothing.
//  2. Probe. Otherwise the loop runs its first pieces inline, of 1, 16,
//     256, ... elements, and reads the clock after each. As soon as the
//     rest, at the cost per element seen so far, is under 32 µs (about
//     what waking a sleeping worker and letting it ramp up costs), the
//     rest runs inline too: a loop of a thousand cheap elements ends after
//     one piece and two clock reads. A single expensive element is enough
//     to see that the rest is worth splitting. MinLen skips the probe: a
//     caller who sets it knows the work, and a loop of as many expensive
//     elements as workers should not run its first one alone.
//  3. Split. Once a microsecond has been timed, the rest is halved
//     recursively with join.Call down to a grain of n / (64 × workers)
//     elements, raised so that a chunk holds at least 2 µs of work, then
//     bounded by MaxLen and MinLen.
//
// Every form hands the machinery a kernel: a small struct of its
// arguments (ForEach's slice and body, Map's input, output and function,
// or the caller's closure) with a method that runs a chunk. The probe and
// the split are generic in it, so no form makes a closure of its own: a
// loop that the probe finishes allocates nothing of this package's, and
// one that splits allocates its shared state once.
//
// Splitting that finely costs almost nothing because of how weft forks
// (docs/forks.md): a fork stays private to its worker, a few plain stores,
// until the scheduler's heartbeat sees an idle worker and publishes the
// worker's oldest private fork, which in a halving recursion is the
// largest range nobody has started. So the split tree is the lazy binary
// splitting of Tzannes et al. (split only while another worker could use
// the piece), with the heartbeat as the thief signal: a thief gets half of
// what its victim has left, splits it in turn as it runs it, and the few
// published forks are the only ones that touch shared memory. The many
// chunks (64 per worker) are what balances an irregular loop, where
// element costs differ a hundredfold: the worker that drew the cheap
// elements steals half of a remaining expensive range, and so on, down to
// the grain.
//
// # Results, errors and panics
//
// Map writes f(xs[i]) to the i-th slot of the result, so its order is the
// input order. ReduceRange, Reduce and MapReduce combine chunk results in
// range order, as a tree: combine must be associative, not commutative.
//
// The Err forms stop handing out chunks after the first error or once
// their context is cancelled, wait for the chunks already running, and
// return that error (or the context's cause). A context that ends at any
// time before the loop returns is reported, even in the last chunk, when
// nothing is left to stop, and even for an empty loop; an error of the
// body's that came first wins. A panic in a body (or in
// combine) stops new chunks the same way and is re-raised, as a
// *scheduler.Panic carrying the original value and stack, after the
// running chunks have returned. Once a loop has stopped, combine is
// called no more: the chunks it skipped have no result, and combine only
// ever gets results that chunk or identity produced, never the zero value
// of one that did not run.
//
// # Sequences
//
// ForEachSeq pulls an iter.Seq on the calling worker, which hands batches
// of items to the pool as tasks (Rayon's par_bridge). Items are visited
// in no particular order. When 2 × workers batches wait, the pulling
// worker runs the oldest of them itself, so memory stays bounded and the
// first batches run first even when no other worker is free: a batch
// starts before 2 × workers more are pulled, so a failure stops even a
// sequence that never ends.
package par
