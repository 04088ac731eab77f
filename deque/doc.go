// Package deque provides the two queues a work-stealing pool is built on:
// Deque, a per-worker Chase-Lev work-stealing deque, and Injector, a shared
// FIFO for jobs submitted from outside the pool. Both hold non-nil pointers
// (*E), so that a slot is one machine word that can be read and written
// atomically, which keeps them allocation-free and clean under the race
// detector.
//
// It is for people who build a scheduler, and for weft's own engine:
// programs that fork and join use the join, scope and par packages, which
// never show a deque.
//
// # Roles
//
// A Deque has one owner, the worker it belongs to. Only the owner calls Push
// and Pop, which work at the bottom end, newest first, so a worker runs its
// most recent (cache-warm, usually smallest) job next. Any other goroutine, a
// thief, calls Steal, which takes the oldest element from the top end: the
// job that has waited longest and, in divide-and-conquer code, usually the
// largest piece of work.
//
// # Indices and the ring
//
// The deque is two int64 indices and a ring buffer. top is the index of the
// oldest element; bottom is one past the newest; the elements are the indices
// [top, bottom). Indices are logical: index i lives in slot i & mask of a ring
// whose size is a power of two, and the indices themselves never wrap (an
// int64 incremented once a nanosecond lasts 292 years). top only increases,
// and only by a compare-and-swap from t to t+1. bottom is written only by the
// owner and moves both ways.
//
//   - Push(x) writes x into slot bottom & mask and then publishes it by
//     storing bottom+1. If the ring is full it first copies the live
//     elements into a ring twice the size, at the same logical indices, and
//     installs that ring as the current one.
//   - Pop reserves index b = bottom-1 by storing bottom = b, and only then
//     reads top = t. If t < b, at least one element lies between the two ends,
//     no thief can get to index b, and the owner takes it without a CAS. If
//     t == b, it is the last element and a thief may be after it: the owner
//     races for it with CAS(top, t, t+1), and resets bottom to t+1 (the empty
//     deque) whoever won. If t > b the deque was empty and bottom is put back.
//   - Steal reads top = t, then bottom = b; if t >= b the deque is empty.
//     Otherwise it loads the current ring, reads slot t & mask, checks that the
//     ring is still the current one, and claims index t with CAS(top, t, t+1).
//     If the check or the CAS fails, it throws away what it read and reports
//     Retry.
//
// When the owner pops a large ring down to under a quarter full, for a run of
// size/8 pops in a row, it copies the live elements into a smaller ring. A
// replaced ring is never written again; thieves still reading it keep it
// alive and the garbage collector frees it afterwards, so no epoch or hazard
// pointer scheme is needed.
//
// # Why a thief never returns a stale element
//
// The danger with replaceable rings (it was behind CVE-2021-32810 in Rust's
// crossbeam-deque) is a thief that reads index t from a ring that is no longer
// the current one, finds there an element from an earlier lap of the ring,
// already taken by someone else, and still wins its CAS on top: one element
// is returned twice and another is lost. Here a successful Steal of index t
// returns exactly the element most recently pushed at index t, for these
// reasons.
//
//  1. No ABA on top. top only moves from t to t+1 by CAS, so a thief's CAS
//     from t succeeds only if top equalled t during the whole of its Steal.
//  2. Index t keeps its content from the thief's load of bottom (which saw
//     b > t) until its CAS, while top == t. The owner writes index i only
//     when pushing at i = bottom, which is at least top, and only if
//     i - top < size (it compares against a cached top that is never larger
//     than the real one), so no other index that maps to slot t & mask is
//     written. To write index t itself, the owner would first have to pop
//     it, lowering bottom to t after the thief read bottom; that pop then
//     reads top == t (Dekker, see Memory ordering), which is the last-element
//     case decided by the CAS on top: if the owner wins, top becomes t+1 and
//     the thief's CAS fails; if the thief wins, the owner resets bottom to
//     t+1 and pushes next at t+1.
//  3. The thief reads from a ring that holds index t. It loads bottom (seeing
//     b > t) before the ring pointer, and the push that published index t
//     installed its ring before storing bottom, so the pointer it loads is
//     that ring or a later one; a later ring was filled by copying every live
//     index, t included, and replaced rings are never written again.
//     Independently, the thief re-checks after its read that the ring is still
//     the current one (ring pointers cannot repeat while the thief holds one,
//     because each ring is a fresh allocation kept alive by that reference),
//     so its read happened while the ring was current, and the single-ring
//     argument of point 2 applies directly.
//
// Either half of point 3 is enough on its own; we keep both because the
// re-check costs one uncontended load on the steal path and makes the proof
// local. This was checked by mutating the code: with the ring loaded before
// bottom and the re-check dropped, the stress test sees elements taken
// twice; with either change alone, all tests still pass.
//
// # Memory ordering
//
// Chase and Lev's paper ("Dynamic Circular Work-Stealing Deque", SPAA 2005)
// assumes sequential consistency. Lê, Pop, Cohen and Zappa Nardelli
// ("Correct and Efficient Work-Stealing for Weak Memory Models", PPoPP 2013)
// give the weakest C11 orderings that keep it correct and prove them. Go's
// sync/atomic operations are all sequentially consistent, which is at least as
// strong as each of theirs:
//
//   - Push's slot store: relaxed there (it only has to be atomic). SC here;
//     it must still be atomic, because a stalled thief can read the same slot.
//   - Push's bottom store: release there, publishing the slot (and a new
//     ring). SC here.
//   - Pop's bottom store then top load: a seq_cst fence between them there.
//     This store-load pair is the heart of the algorithm (the owner and the
//     thieves each write one index and then read the other, as in Dekker's
//     mutual exclusion); under release/acquire the store could still be in
//     the store buffer when top is read, and the owner and a thief could both
//     take the last element. Go's SC store followed by an SC load cannot be
//     reordered (on amd64 the store is an XCHG, a full barrier).
//   - Steal's top load, bottom load: acquire with a seq_cst fence between
//     them there; SC loads here, totally ordered with the owner's SC
//     operations, which is what the fence provides.
//   - The CAS on top (Steal and the last-element Pop): seq_cst there; SC
//     here.
//   - Pop's final bottom resets and the ring pointer loads: relaxed or
//     acquire there; SC here, stronger than needed.
//
// # Cost
//
// On amd64 an SC atomic store compiles to XCHG, a locked instruction, and
// loads to plain MOVs. Push costs two locked instructions (the slot store and
// the bottom store) and Pop one (the bottom store, which doubles as the
// store-load fence), three per push/pop pair. That is the floor with
// sync/atomic and a race-detector-clean deque: the slot write must be atomic
// because stalled thieves may read the slot concurrently, bottom must be
// atomic because thieves read it, Go has no relaxed or release atomic store,
// and Pop needs a store-load fence. The owner does avoid two other costs: it
// keeps a private copy of top (never larger than the real one) for Push's
// fullness test, so Push does not read the cache line that thieves write, and
// Pop on a deque known to be empty from that copy returns without any store.
package deque
