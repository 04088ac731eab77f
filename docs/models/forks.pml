/*
 * forks.pml -- private forks published by a heartbeat (internal/core/fork.go,
 * internal/core/heartbeat.go, join/), checked with spin.
 *
 *   spin -a forks.pml && gcc -O2 -o pan pan.c && ./pan
 *   spin -DMUTANT_PUBLISH_NEWEST -a forks.pml && ...   (a broken variant)
 *
 * The Owner is one worker running a nest of N joins: on the way down it
 * registers N forks (Worker.Fork), one per depth; on the way up it ends
 * them innermost first (Worker.Reclaim, then the second half, then
 * Unfork). A heartbeat may fire at any fork on the way down and, because
 * the first halves on the way up may fork again, between any two reclaims
 * on the way up; each heartbeat publishes the oldest private fork by
 * pushing it on the owner's Chase-Lev deque. Thieves steal from the deque,
 * run what they steal, write its result and set its latch.
 *
 * The deque is modelled at the level of its atomic operations, each one
 * step, as the Go code performs them (sequentially consistent sync/atomic
 * operations; the owner's reads of its own variables need no ordering).
 * Its buffer never wraps (N slots suffice), so growth is not modelled:
 * deque/ has its own linearizability test for that.
 *
 * Properties
 *  (a) every second half runs exactly once: ran[i] is asserted 0 before
 *      each run and 1 for every fork when the owner is done;
 *  (b) the owner reads a thief's result only after the thief wrote it;
 *  (c) the owner's pop at the end of a published join finds its own fork
 *      or nothing: the claim reclaimPublished relies on when it waits
 *      after an empty pop (forks published oldest first, stolen oldest
 *      first);
 *  (d) nobody waits forever: spin's invalid-end-state check, with the
 *      no-cycles run showing every execution is finite (see README.md).
 *
 * Mutants (each must be rejected; see check.sh):
 *  MUTANT_RECLAIM_AS_PRIVATE   Reclaim runs a published fork inline without
 *                              popping it back                     -> (c), (a)
 *  MUTANT_PUBLISH_KEEPS_STATE  publishing pushes the fork but leaves its
 *                              state private                            -> (a)
 *  MUTANT_EMPTY_POP_INLINE     after an empty pop the owner runs the half
 *                              itself instead of waiting for the thief  -> (a)
 *  MUTANT_LATCH_BEFORE_RESULT  the thief sets the latch, then writes the
 *                              result                                   -> (b)
 *  MUTANT_PUBLISH_NEWEST       a heartbeat publishes the newest private
 *                              fork instead of the oldest               -> (c)
 *  MUTANT_POP_LAST_NO_CAS      the owner takes the deque's last element
 *                              without the CAS on top                   -> (a)
 */

#ifndef N
#define N 3               /* nesting depth: forks per run */
#endif
#ifndef THIEVES
#define THIEVES 2
#endif
#ifndef TRIES
#define TRIES 3           /* steal attempts per thief */
#endif

#define IDLE      0
#define PRIVATE   1
#define PUBLISHED 2
#define INLINE    3
#define NONE      255     /* no fork: an empty pop or steal */

/* owner-private (plain fields in the Go code) */
byte state[N];            /* Fork.state */
byte depth = 0;           /* frames in use: forks 0..depth-1 */
byte oldest = 0;          /* Worker.oldest: no private fork below it */

/* the owner's Chase-Lev deque; the buffer holds fork indices */
int top = 0;
int bottom = 0;
byte buf[N];

/* per fork: what a thief hands back, and the ghost run count */
bool latch[N];            /* Fork.latch, set by the thief (Fork.Done) */
bool result[N];           /* valueFrame.result written */
byte ran[N];              /* ghost: times the second half ran */
bool owner_done = false;

inline run_half(i) {
	assert(ran[i] == 0);
	ran[i]++
}

/* Deque.Push: the slot, then the bottom store that publishes it. */
inline push(x) {
	buf[bottom] = x;
	bottom = bottom + 1
}

/* Deque.Pop into x (NONE when empty or lost to a thief). */
inline pop(x) {
	b = bottom - 1;
	bottom = b;                       /* SC store: the Dekker pair with ... */
	t = top;                          /* ... this SC load */
	if
	:: t < b ->
		x = buf[b]
	:: t == b ->
		x = buf[b];
#ifdef MUTANT_POP_LAST_NO_CAS
		top = t + 1;
#else
		atomic {
			if
			:: top == t -> top = t + 1
			:: else -> x = NONE
			fi
		}
#endif
		bottom = b + 1
	:: t > b ->
		bottom = b + 1;
		x = NONE
	fi
}

/* publishOldest: the first private fork at or above oldest. */
inline publish_oldest() {
	j = oldest;
	do
	:: j >= depth -> oldest = depth; break
	:: j < depth && state[j] != PRIVATE -> j++
	:: j < depth && state[j] == PRIVATE ->
#ifndef MUTANT_PUBLISH_KEEPS_STATE
		state[j] = PUBLISHED;
#endif
		oldest = j + 1;
		push(j);
		break
	od
}

#ifdef MUTANT_PUBLISH_NEWEST
inline publish_newest() {
	j = depth;
	do
	:: j == 0 -> break
	:: j > 0 && state[j - 1] != PRIVATE -> j--
	:: j > 0 && state[j - 1] == PRIVATE ->
		state[j - 1] = PUBLISHED;
		push(j - 1);
		break
	od
}
#define publish() publish_newest()
#else
#define publish() publish_oldest()
#endif

/* A heartbeat check: it may or may not decide to publish. */
inline heartbeat() {
	if
	:: publish()
	:: skip
	fi
}

/* Reclaim, the second half and Unfork for the fork at depth-1. */
inline end_join(i) {
	if
	:: state[i] == PRIVATE ->
		state[i] = INLINE;
		run_half(i)
	:: state[i] == PUBLISHED ->
#ifdef MUTANT_RECLAIM_AS_PRIVATE
		if
		:: true -> state[i] = INLINE; run_half(i)
		:: true -> skip
		fi;
#endif
		do
		:: state[i] == INLINE -> break
		:: state[i] == PUBLISHED && latch[i] ->
			assert(result[i]);        /* (b) */
			break
		:: state[i] == PUBLISHED && !latch[i] ->
			pop(x);
			if
			:: x == i ->
				state[i] = INLINE;
				run_half(i)
			:: x == NONE ->
#ifdef MUTANT_EMPTY_POP_INLINE
				state[i] = INLINE;
				run_half(i)
#else
				/* WaitUntil: publishAll (nothing private is older than
				   a published fork), then sleep until the latch is set */
				latch[i];
				assert(result[i])     /* (b) */
#endif
			:: else ->
				assert(x == i)        /* (c): fails here */
			fi;
			break
		od
	fi;
	state[i] = IDLE;
	depth--;
	if
	:: depth < oldest -> oldest = depth
	:: else -> skip
	fi
}

active proctype Owner() {
	byte i, j, x;
	int b, t;
	/* down: the first halves nest N deep, each registering a fork */
	do
	:: depth < N ->
		state[depth] = PRIVATE;
		depth++;
		heartbeat()
	:: else -> break
	od;
	/* up: end the joins innermost first; the first halves still running
	   may fork (and so beat) between two ends */
	do
	:: depth > 0 ->
		i = depth - 1;
		end_join(i);
		heartbeat()
	:: else -> break
	od;
	i = 0;
	do
	:: i < N -> assert(ran[i] == 1); i++   /* (a) */
	:: else -> break
	od;
	owner_done = true
}

active [THIEVES] proctype Thief() {
	byte tries = 0, x;
	int b, t;
	do
	:: tries < TRIES ->
		tries++;
		t = top;
		b = bottom;
		if
		:: t < b ->
			x = buf[t];
			atomic {
				if
				:: top == t -> top = t + 1
				:: else -> x = NONE
				fi
			};
			if
			:: x != NONE ->
				run_half(x);
#ifdef MUTANT_LATCH_BEFORE_RESULT
				latch[x] = true;
				result[x] = true
#else
				result[x] = true;
				latch[x] = true
#endif
			:: else -> skip
			fi
		:: else -> skip
		fi
	:: else -> break
	od
}
