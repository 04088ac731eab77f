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
 * Frames are reused. After ending the join at depth d, the first half at
 * depth d-1 (still running) may make another join, which enters depth d
 * again and forks with the same frame: its state, latch, inputs and
 * result (join/call.go writes the inputs, fr.f and fr.arg, before Fork).
 * The owner does so REFORKS times in all, at depths it picks; the
 * heartbeat between two ends stands for the joins a first half makes and
 * ends while they stay private. gen[i] (ghost) numbers the uses of frame
 * i; a thief runs the half of the use it finds in input[i] and writes
 * that use's number as its result, and the owner resets the latch after
 * it saw it set (reclaimPublished), before the frame's next use.
 *
 * The deque is modelled at the level of its atomic operations, each one
 * step, as the Go code performs them (sequentially consistent sync/atomic
 * operations; the owner's reads of its own variables need no ordering).
 * Its buffer never wraps (N+REFORKS slots suffice, one per fork made),
 * so growth is not modelled: deque/ has its own linearizability test for
 * that. A step that touches only what no other process reads (the
 * owner's state, depth and oldest, a process's locals, the ghosts) is
 * merged with the step next to it (d_step, atomic), and dead locals are
 * zeroed: that hides no interleaving another process could tell apart,
 * and keeps the state space small enough for reuse.
 *
 * Properties
 *  (a) every second half runs exactly once per join: ran[i] is asserted 0
 *      before each run and 1 when its join ends (and for every frame when
 *      the owner is done); a new use of frame i starts it at 0 again;
 *  (b) the owner reads a thief's result only after the thief wrote it,
 *      and reads the result of the current use: result[i] == gen[i];
 *  (c) the owner's pop at the end of a published join finds its own fork
 *      or nothing: the claim reclaimPublished relies on when it waits
 *      after an empty pop (forks published oldest first, stolen oldest
 *      first);
 *  (d) nobody waits forever: spin's invalid-end-state check, with the
 *      no-cycles run showing every execution is finite (see README.md);
 *  (e) no private fork below oldest, the heartbeat scan's start, after
 *      every owner step (Fork with its heartbeat, a heartbeat, the end of
 *      a join): what publishOldest relies on to find the oldest private
 *      fork, and publishAll (before WaitUntil, and in Block) to publish
 *      them all. A fork left below oldest is never published: the owner
 *      still runs it inline, so only a wait for it (two halves that wait
 *      for each other across Block, scheduler's
 *      TestBlockPublishesPrivateForks) shows the bug, as a hang;
 *  (f) inputs written before publication: a thief that steals a fork finds
 *      the inputs of the frame's current use, input[x] == gen[x].
 *
 * Mutants (each must be rejected; see check.sh):
 *  MUTANT_RECLAIM_AS_PRIVATE   Reclaim runs a published fork inline without
 *                              popping it back                     -> (c), (a)
 *  MUTANT_PUBLISH_KEEPS_STATE  publishing pushes the fork but leaves its
 *                              state private                       -> (e), (a)
 *  MUTANT_EMPTY_POP_INLINE     after an empty pop the owner runs the half
 *                              itself instead of waiting for the thief  -> (a)
 *  MUTANT_LATCH_BEFORE_RESULT  the thief sets the latch, then writes the
 *                              result                                   -> (b)
 *  MUTANT_PUBLISH_NEWEST       a heartbeat publishes the newest private
 *                              fork instead of the oldest               -> (c)
 *  MUTANT_POP_LAST_NO_CAS      the owner takes the deque's last element
 *                              without the CAS on top                   -> (a)
 *  MUTANT_NO_LATCH_RESET       reclaimPublished does not Reset the latch
 *                              it saw set: the next use of the frame finds
 *                              it set, and the owner reads the previous
 *                              use's result                             -> (b)
 *  MUTANT_UNFORK_KEEPS_OLDEST  Unfork does not lower oldest to the new
 *                              depth: a fork made at that depth again is
 *                              private below oldest                     -> (e)
 *  MUTANT_INPUTS_AFTER_FORK    the inputs are written after Fork, whose
 *                              heartbeat may already have published the
 *                              fork: a thief runs the previous use's
 *                              (or no) inputs                           -> (f)
 */

#ifndef N
#define N 3               /* nesting depth: forks on the way down */
#endif
#ifndef REFORKS
#define REFORKS 2         /* joins on the way up, each reusing a frame */
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
byte buf[N + REFORKS];

/* per frame: its inputs, what a thief hands back, and ghosts */
bool latch[N];            /* Fork.latch, set by the thief (Fork.Done) */
byte input[N];            /* valueFrame.f, .arg: the use they were written for */
byte result[N];           /* valueFrame.result: the use it was computed for */
byte gen[N];              /* ghost: the frame's current use, 1, 2, ... */
byte ran[N];              /* ghost: times the current use's half ran */
bool owner_done = false;

/* The second half of frame i runs (a ghost step: inside a d_step). */
inline run_half(i) {
	assert(ran[i] == 0);
	ran[i]++
}

/* Deque.Push: the slot, then the bottom store that publishes it. */
inline push(x) {
	buf[bottom] = x;
	d_step { bottom = bottom + 1; x = 0 }
}

/* Deque.Pop into x (NONE when empty or lost to a thief). */
inline pop(x) {
	b = bottom - 1;
	bottom = b;                       /* SC store: the Dekker pair with ... */
	t = top;                          /* ... this SC load */
	if
	:: t < b ->
		d_step { x = buf[b]; b = 0; t = 0 }
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
		};
#endif
		d_step { bottom = b + 1; b = 0; t = 0 }
	:: t > b ->
		d_step { bottom = b + 1; b = 0; t = 0; x = NONE }
	fi
}

/* publishOldest: the first private fork at or above oldest. */
inline publish_oldest() {
	d_step {
		j = oldest;
		do
		:: j >= depth -> oldest = depth; j = NONE; break
		:: j < depth && state[j] != PRIVATE -> j++
		:: j < depth && state[j] == PRIVATE ->
#ifndef MUTANT_PUBLISH_KEEPS_STATE
			state[j] = PUBLISHED;
#endif
			oldest = j + 1;
			break
		od
	};
	if
	:: j != NONE -> push(j)
	:: else -> j = 0
	fi
}

#ifdef MUTANT_PUBLISH_NEWEST
inline publish_newest() {
	d_step {
		j = depth;
		do
		:: j == 0 -> j = NONE; break
		:: j > 0 && state[j - 1] != PRIVATE -> j--
		:: j > 0 && state[j - 1] == PRIVATE ->
			j--;
			state[j] = PUBLISHED;
			break
		od
	};
	if
	:: j != NONE -> push(j)
	:: else -> j = 0
	fi
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

/* (e): no private fork below oldest. In a d_step; below is scratch. */
inline check_oldest() {
	below = 0;
	do
	:: below < oldest && below < N ->
		assert(state[below] != PRIVATE);
		below++
	:: else -> break
	od;
	below = 0
}

/* (e), checked after an owner step. */
inline owner_inv() {
	d_step { check_oldest() }
}

/* A join at the current depth, on its frame, used before or not: the
   inputs (fr.f, fr.arg = f, y in join/call.go), then Worker.Fork, whose
   heartbeat check may publish it. */
inline fork() {
#ifdef MUTANT_INPUTS_AFTER_FORK
	d_step {
		gen[depth]++; ran[depth] = 0;      /* ghost: the next use */
		state[depth] = PRIVATE;
		depth++
	};
	heartbeat();
	input[depth - 1] = gen[depth - 1];
#else
	d_step {
		gen[depth]++; ran[depth] = 0;      /* ghost: the next use */
		input[depth] = gen[depth];
		state[depth] = PRIVATE;
		depth++
	};
	heartbeat();
#endif
	owner_inv()
}

/* latch.Reset, by the owner after it saw the latch set. */
inline reset_latch(i) {
#ifdef MUTANT_NO_LATCH_RESET
	skip
#else
	latch[i] = false
#endif
}

/* Reclaim, the second half and Unfork for the fork at depth-1. */
inline end_join(i) {
	if
	:: atomic { state[i] == PRIVATE -> state[i] = INLINE; run_half(i) }
	:: state[i] == PUBLISHED ->
#ifdef MUTANT_RECLAIM_AS_PRIVATE
		if
		:: d_step { state[i] = INLINE; run_half(i) }
		:: true -> skip
		fi;
#endif
		/* Probe saw the latch set, Reset, then the result (callForked):
		   one step, as once the latch is set nobody else writes it or
		   the result */
		do
		:: state[i] == INLINE -> break
		:: atomic { state[i] == PUBLISHED && latch[i] ->
			reset_latch(i);
			assert(result[i] == gen[i])   /* (b) */
		   };
		   break
		:: state[i] == PUBLISHED && !latch[i] ->
			pop(x);
			if
			:: atomic { x == i -> state[i] = INLINE; run_half(i) }
			:: x == NONE ->
#ifdef MUTANT_EMPTY_POP_INLINE
				d_step { state[i] = INLINE; run_half(i) }
#else
				/* WaitUntil: publishAll (nothing private is older than
				   a published fork), then sleep until the latch is set */
				atomic { latch[i] ->
					reset_latch(i);
					assert(result[i] == gen[i])  /* (b) */
				}
#endif
			:: else ->
				assert(x == i)        /* (c): fails here */
			fi;
			break
		od
	fi;
	/* Unfork */
	atomic {
		assert(ran[i] == 1);          /* (a), for this join */
		state[i] = IDLE;
		depth--;
#ifndef MUTANT_UNFORK_KEEPS_OLDEST
		if
		:: depth < oldest -> oldest = depth
		:: else -> skip
		fi;
#endif
		x = 0;
		check_oldest()                /* (e) */
	}
}

active proctype Owner() {
	byte i, j, x, below, reforks = 0;
	int b, t;
	/* down: the first halves nest N deep, each making a join */
	do
	:: depth < N -> fork()
	:: else -> break
	od;
	/* up: end the joins innermost first. After the join at depth d
	   ends, the first half of the one at depth d-1, still running, may
	   make another join, which reuses frame d (REFORKS times in all),
	   or make and end joins that stay private, of which only the
	   heartbeat matters */
	do
	:: depth > 0 ->
		i = depth - 1;
		end_join(i);
		if
		:: reforks < REFORKS -> reforks++; fork()
		:: true -> heartbeat(); owner_inv()
		fi
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
			if
			:: atomic { top == t -> top = t + 1; t = 0; b = 0 };
				/* RunJob: the half, on the inputs it finds */
				d_step {
					assert(input[x] == gen[x]);   /* (f) */
					run_half(x)
				};
#ifdef MUTANT_LATCH_BEFORE_RESULT
				latch[x] = true;
				d_step { result[x] = input[x]; x = 0 }
#else
				result[x] = input[x];
				d_step { latch[x] = true; x = 0 }
#endif
			:: atomic { top != t -> t = 0; b = 0; x = 0 }
			fi
		:: else -> d_step { t = 0; b = 0 }
		fi
	:: else -> break
	od
}
