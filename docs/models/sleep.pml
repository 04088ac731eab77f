/*
 * sleep.pml -- weft's sleep protocol: idle workers, the counters word with
 * the jobs event counter (JEC), and new-work wakeups. Checked with spin.
 *
 *   spin -a sleep.pml && gcc -O2 -o pan pan.c && ./pan
 *   spin -DMUTANT_PUSH_NO_JEC -a sleep.pml && ...   (a deliberately broken variant)
 *
 * What is modelled
 *  - The counters word (JEC, inactive, sleeping) is three bytes that are
 *    only ever read or written together inside one atomic step: that is a
 *    single-word load, RMW or CAS. All of Go's sync/atomic is sequentially
 *    consistent, and so is this model.
 *  - The JEC does not wrap: it starts at 0 and only grows, to at most
 *    2*NPUSH (a post bumps it only from even to odd, an announcement only
 *    from odd to even; CountersSane asserts the bound), so a byte is plenty
 *    and "JEC unchanged" really means unchanged. (The Go JEC has 32
 *    bits. With -DJEC_MOD=2 the JEC wraps at every second bump and the
 *    model still verifies; see README.md.)
 *  - Jobs: `inj` counts jobs in the injector, `dq` jobs in the pushing
 *    worker's deque; either is stealable by every worker. A search tries
 *    the deques, then the injector (two separate atomic steps).
 *  - Pusher: one process posts NPUSH jobs, each to a nondeterministically
 *    chosen queue, and calls NewJobs after each. It is either an outside
 *    goroutine (injector) or a worker that pushes onto its own deque and
 *    then stays busy for an unbounded time (it does not search again in
 *    the model); either way only the NW other workers can run the job.
 *    queueWasEmpty is computed as the callers do, in steps of their own:
 *    Pool.Inject loads the injector's length before the push; Worker.Push
 *    pushes, skips NewJobs if its own Quiet() load finds the pool quiet,
 *    and then loads the deque's length (Len() <= 1).
 *  - NW workers loop: StartLooking (inactive++), search; on success
 *    WorkFound (inactive--) and run the job; otherwise NoWorkFound:
 *    up to R fruitless rounds (fewer when the search is crowded), each of
 *    which may miss the deque (it samples the deques), announce sleepy,
 *    one more round that sees every queue, then sleep.
 *  - WorkFound's look for jobs left behind calls NewJobs(1, false) with
 *    its Quiet fast path (a load of its own) before postJobs.
 *  - Each worker's mutex, condvar and `blocked` flag as in latch.pml. By
 *    default the worker's latch stays Unset, so its CASes always succeed
 *    and are left out. With LATCH_SET each worker has the latch.Core of
 *    the wait it is in (lst), with the owner's CASes where sleep.go has
 *    them (GetSleepy, FallAsleep under the mutex, WakeUp), a probe at the
 *    top of each search (waitUntilCold's loop), and a Setter process that
 *    sets NSET latches of workers of its choice and wakes the owner when
 *    its swap found Sleeping: a worker can then leave the idle set without
 *    a job, through the same WorkFound as a worker that found one.
 *
 * Properties
 *  (1) no stranded job: in every terminal state of the system the queues
 *      are empty. Workers park in cond.Wait at an end label (`end_parked`),
 *      so "all workers asleep" is a valid end state *as such*; the Watchdog
 *      process, whose `timeout` guard is executable only when nothing else
 *      is, then asserts inj == 0 && dq == 0. A terminal state in which any
 *      process is stuck elsewhere (a mutex, or the pusher) is reported by
 *      the ordinary invalid-end-state check. The NP run in check.sh shows
 *      the model has no cycles, so every execution ends in such a state:
 *      "every job is eventually run" follows.
 *  (2) counter sanity: sleeping <= inactive always (monitor CountersSane);
 *      no decrement underflows, and a worker that stops being inactive is
 *      not counted as sleeping (asserts at each decrement).
 *
 * Switches
 *  LATCH_SET       latch sets and the latch exit from the search (above);
 *                  check.sh runs it with BUSY_JOBS and NPUSH=1 (NPUSH=2
 *                  also verifies: 1.35e8 states, -DCOLLAPSE, 6.7 GB)
 *  BUSY_JOBS       a worker that leaves the search may run for good
 *  RECHECK         add Rayon's injector re-check after the sleeper registered
 *                  as sleeping. sleep.go has no such re-check (the default
 *                  model is the code); spin shows the protocol is correct
 *                  with and without it (check.sh runs both).
 *  NW, NPUSH, R    workers (2), posts (2), fruitless rounds before announcing (1).
 *  PUSH_INJ_ONLY, PUSH_DQ_ONLY   post to one kind of queue only.
 *  JEC_MOD         make the JEC wrap modulo this (even) number (default
 *                  256: no wrap within the bound asserted below).
 *                  Experiments only (README.md), not run by check.sh.
 *  Mutants (each must be rejected, see README.md):
 *  MUTANT_PUSH_NO_JEC          NewJobs never bumps the JEC                    -> (1)
 *  MUTANT_NO_JEC_CHECK         sleeper registers without comparing the JEC    -> (1)
 *  MUTANT_NO_FINAL_SEARCH      sleeper sleeps right after announcing          -> (1)
 *  MUTANT_SAMPLED_FINAL_SEARCH the search after announcing samples too       -> (1)
 *  MUTANT_PUSH_BEFORE_JOB      NewJobs runs before the job is visible         -> (1)
 *  MUTANT_REGISTER_BEFORE_LOCK sleeper counts itself sleeping before taking
 *                              its mutex                                     -> (1)
 *  MUTANT_IDLE_COUNTS_SLEEPERS NewJobs takes `inactive` for the awake idle
 *                              workers, forgetting that sleepers are in it   -> (1)
 *  MUTANT_NO_WORKFOUND_RECHECK (BUSY_JOBS) WorkFound never looks for jobs
 *                              left behind                                   -> (1)
 *  MUTANT_LATCH_EXIT_NO_RECHECK (LATCH_SET, BUSY_JOBS) only a worker that
 *                              found a job looks; one that leaves on its
 *                              latch does not                                -> (1)
 */

#ifndef NW
#define NW 2              /* workers */
#endif
#ifndef NPUSH
#define NPUSH 2           /* jobs posted */
#endif
#ifndef R
#define R 1               /* fruitless rounds before announcing sleepy */
#endif
#ifndef JEC_MOD
#define JEC_MOD 256       /* experiments only: a small even JEC_MOD makes the JEC wrap */
#endif
#define BUMP_JEC jec = (jec + 1) % JEC_MOD

/* the counters word */
byte jec = 0;             /* even: some worker announced sleepy since the last post */
byte inactive = 0;
byte sleeping = 0;

/* queues */
byte inj = 0;             /* injector */
byte dq = 0;              /* the pushing worker's deque */

/* per-worker sleep state; condvar as in latch.pml */
bool mu[NW];
bool blocked[NW];
bool waiting[NW];
bool signalled[NW];

bool pusher_done = false;
#ifdef LATCH_SET
/* each worker's latch.Core for the wait it is in (latch.pml has the latch
 * on its own); a fresh latch (UNSET) for each wait */
#define UNSET    0
#define SLEEPY   1
#define SLEEPING 2
#define SET      3
byte lst[NW];
#ifndef NSET
#define NSET 1            /* latch sets, by the Setter */
#endif
#endif
#ifdef BUSY_JOBS
byte busy = 0;            /* workers running a job that never ends */
#endif

inline lock(w)   { atomic { !mu[w] -> mu[w] = true } }
inline unlock(w) { assert(mu[w]); mu[w] = false }

inline cond_signal(w) {
	atomic {
		if
		:: waiting[w] -> waiting[w] = false; signalled[w] = true
		:: else -> skip
		fi
	}
}

/* wake(i) from wake.go: under i's mutex, clear blocked and uncount; then,
 * after unlocking, signal if we were the one who cleared blocked */
inline wake(i, woke) {
	lock(i);
	if
	:: blocked[i] ->
		blocked[i] = false;
		atomic { assert(sleeping > 0); sleeping-- };
		woke = true
	:: else -> woke = false
	fi;
	unlock(i);
	if
	:: woke -> cond_signal(i)
	:: else -> skip
	fi
}

/* wakeAny(1): the lowest-index blocked worker */
inline wake_one() {
	i = 0;
	do
	:: i < NW ->
		wake(i, woke);
		if
		:: woke -> break
		:: else -> i++
		fi
	:: else -> break
	od
}

/* make one job visible, in the deque or the injector, and work out
 * NewJobs's queueWasEmpty the way the caller does: Pool.Inject loads the
 * injector's length (IsEmpty) in a step of its own before the push;
 * Worker.Push pushes, loads the counters (Quiet: a quiet pool skips
 * NewJobs), and only then the deque's length (Len() <= 1, after thieves
 * may have taken jobs). The mutant keeps the plain version. */
#ifdef MUTANT_PUSH_BEFORE_JOB
inline PUSH_JOB() {
	if
#ifndef PUSH_INJ_ONLY
	:: atomic { was_empty = (dq == 0); dq++ }
#endif
#ifndef PUSH_DQ_ONLY
	:: atomic { was_empty = (inj == 0); inj++ }
#endif
	fi
}
#else
inline PUSH_JOB() {
	if
#ifndef PUSH_INJ_ONLY
	:: dq++;
	   atomic { quiet = (jec % 2 == 1 && sleeping == 0) };
	   if
	   :: !quiet -> was_empty = (dq <= 1)
	   :: else -> skip
	   fi
#endif
#ifndef PUSH_DQ_ONLY
	:: was_empty = (inj == 0);
	   inj++;
	   quiet = false
#endif
	fi
}
#endif

/* WakeUp: CAS Sleeping -> Unset, failing harmlessly if set */
#ifdef LATCH_SET
inline WAKE_UP_LATCH() {
	atomic {
		if
		:: lst[me] == SLEEPING -> lst[me] = UNSET
		:: else -> skip
		fi
	}
}
#else
#define WAKE_UP_LATCH() skip
#endif

active [NW] proctype Worker()
{
	byte me = _pid;       /* Workers are declared first: pids 0..NW-1 */
	byte rounds = 0;
	byte seen = 0;        /* the JEC this worker saw when it got sleepy */
	bool found = false;
	bool ok = false;
#if defined(BUSY_JOBS) || !defined(MUTANT_NO_WORKFOUND_RECHECK)
	byte i = 0;
	bool woke = false;
	bool want = false;
	byte c_sl, c_idle;
#endif

start:
	/* StartLooking */
	atomic { inactive++ };
	rounds = 0;
search:
#ifdef LATCH_SET
	/* the loop head of waitUntilCold: for !l.Probe() */
	if
	:: lst[me] == SET ->
		lst[me] = UNSET;      /* the next wait has a fresh latch */
#ifdef MUTANT_LATCH_EXIT_NO_RECHECK
		/* BUG: only a worker that found a job looks for jobs left behind */
		atomic { assert(inactive > sleeping); inactive-- };
		goto busy_or_not
#else
		goto leave
#endif
	:: else -> skip
	fi;
#endif
	found = false;
	if
	:: atomic { if :: dq > 0 -> dq--; found = true :: else -> skip fi }
#ifdef MUTANT_SAMPLED_FINAL_SEARCH
	:: true -> skip          /* BUG: the last search samples too */
#else
	:: rounds <= R -> skip   /* a round before the announcement tries a
	                            sample of the deques and may miss this one */
#endif
	fi;
	if
	:: !found -> atomic { if :: inj > 0 -> inj--; found = true :: else -> skip fi }
	:: else -> skip
	fi;
	if
	:: found -> goto leave
	:: else -> skip
	fi;
	/* NoWorkFound */
	if
	:: rounds < R ->
		rounds++
	:: rounds <= R ->         /* at R, or earlier when the search is crowded */
		/* announceSleepy: make the JEC even, remember it */
		atomic {
			if
			:: jec % 2 == 1 -> BUMP_JEC
			:: else -> skip
			fi;
			seen = jec
		};
		rounds = R + 1;           /* the next search is the final, full one */
#ifdef MUTANT_NO_FINAL_SEARCH
		/* BUG: no search between announcing and sleeping. A job posted
		 * before the announcement (whose post found the JEC odd, or bumped
		 * it before we made it even again) is never seen. */
		goto try_sleep
#else
		skip
#endif
	:: rounds > R ->
try_sleep:
#ifdef MUTANT_REGISTER_BEFORE_LOCK
		/* BUG: counted as sleeping before the mutex is held: a waker
		 * that reads sleeping > 0 can take the mutex, find blocked ==
		 * false and leave before we block. */
		atomic {
			if
			:: jec == seen -> sleeping++; ok = true
			:: else -> ok = false
			fi
		};
		lock(me);
#else
#ifdef LATCH_SET
		/* GetSleepy: CAS Unset -> Sleepy; if set, the probe sees it */
		atomic {
			if
			:: lst[me] == UNSET -> lst[me] = SLEEPY; ok = true
			:: else -> ok = false
			fi
		};
		if
		:: !ok -> goto search
		:: else -> skip
		fi;
#endif
		lock(me);
#ifdef LATCH_SET
		/* FallAsleep: CAS Sleepy -> Sleeping under the mutex; if set,
		 * unlock and start the search afresh (*idle = Idle{}) */
		atomic {
			if
			:: lst[me] == SLEEPY -> lst[me] = SLEEPING; ok = true
			:: else -> ok = false
			fi
		};
		if
		:: !ok -> unlock(me); rounds = 0; goto search
		:: else -> skip
		fi;
#endif
		/* registerSleeping: CAS on the whole word, JEC must equal seen */
		atomic {
#ifdef MUTANT_NO_JEC_CHECK
			/* BUG: nothing tells the sleeper about posts since it got sleepy */
			sleeping++; ok = true
#else
			if
			:: jec == seen -> sleeping++; ok = true
			:: else -> ok = false
			fi
#endif
		};
#endif
		if
		:: !ok ->
			/* a job was posted since we got sleepy: search, re-announce */
			WAKE_UP_LATCH();
			unlock(me);
			rounds = R
		:: else ->
#ifdef RECHECK
			/* Rayon's belt and braces: one last look at the injector */
			if
			:: inj > 0 ->
				atomic { assert(sleeping > 0); sleeping-- };
				unlock(me);
				rounds = 0;
				goto search
			:: else -> skip
			fi;
#endif
			blocked[me] = true;
			do
			:: blocked[me] ->
				atomic { assert(mu[me]); waiting[me] = true; mu[me] = false };
end_parked:			atomic { signalled[me] -> signalled[me] = false };
				lock(me)
			:: else -> break
			od;
			/* the waker has already uncounted us */
			WAKE_UP_LATCH();
			unlock(me);
			rounds = 0
		fi
	fi;
	goto search;

leave:
	/* WorkFound (a job was found, or the latch is set); the job itself
	 * posts nothing */
#ifndef MUTANT_NO_WORKFOUND_RECHECK
	/* the fix: the last awake idle worker to leave, while others
	 * sleep, looks for jobs left behind (deques, then injector) and
	 * wakes a sleeper for them, as NewJobs(1, false) would */
	atomic { assert(inactive > sleeping); inactive--;
	         c_sl = sleeping; c_idle = inactive - sleeping };
	want = false;
	if
	:: c_sl > 0 && c_idle == 0 ->
		if :: dq > 0 -> want = true :: else -> skip fi;
		if :: !want && inj > 0 -> want = true :: else -> skip fi
	:: else -> skip
	fi;
	if
	:: want ->
		/* NewJobs(1, false): its Quiet fast path is a load of
		 * its own, before postJobs */
		atomic { want = !(jec % 2 == 1 && sleeping == 0) };
		if
		:: want ->
			atomic {
				if
				:: jec % 2 == 0 -> BUMP_JEC
				:: else -> skip
				fi;
				c_sl = sleeping
			};
			if
			:: c_sl > 0 -> wake_one()
			:: else -> skip
			fi
		:: else -> skip
		fi
	:: else -> skip
	fi;
#else
	atomic { assert(inactive > sleeping); inactive-- };
#endif
busy_or_not:
#ifdef BUSY_JOBS
	/* the job (or the task whose wait ended) may run for an unbounded time (a long task that never
	 * forks): this worker never searches again. At most NW-1 workers
	 * do so, so that one worker is always left to run the rest (the
	 * test and the increment are one step: two workers that both passed
	 * the test could otherwise leave nobody to run the jobs). */
	if
	:: atomic { busy < NW - 1 -> busy++ };
end_busy:		false
	:: true -> skip
	fi;
#endif
	goto start
}

active proctype Pusher()
{
	byte n = 0;
	byte i = 0;
	bool woke = false;
	bool was_empty = false;
	bool quiet = false;       /* Worker.Push's own Quiet() before NewJobs */
	byte c_jec, c_in, c_sl;

	do
	:: n < NPUSH ->
#ifndef MUTANT_PUSH_BEFORE_JOB
		/* make the job visible */
		PUSH_JOB();
#endif
		/* NewJobs(1, was_empty), unless Worker.Push found the pool quiet */
		atomic { c_jec = jec; c_in = inactive; c_sl = sleeping };
		if
		:: quiet -> skip
		:: c_jec % 2 == 1 && c_sl == 0 -> skip     /* fast path: one load */
		:: else ->
			/* postJobs: bump an even JEC; the word afterwards */
			atomic {
#ifndef MUTANT_PUSH_NO_JEC
				if
				:: jec % 2 == 0 -> BUMP_JEC
				:: else -> skip
				fi;
#endif
				/* BUG under MUTANT_PUSH_NO_JEC: only the load remains, so a
				 * sleepy worker's register CAS still succeeds */
				c_jec = jec; c_in = inactive; c_sl = sleeping
			};
			if
			:: c_sl == 0 -> skip
			:: else ->
				if
				:: !was_empty -> wake_one()
#ifdef MUTANT_IDLE_COUNTS_SLEEPERS
				/* BUG: the sleepers are inactive too; with every inactive
				 * worker asleep this still counts them as awake and idle */
				:: else -> if :: c_in < 1 -> wake_one() :: else -> skip fi
#else
				:: else -> if :: c_in - c_sl < 1 -> wake_one() :: else -> skip fi
#endif
				fi
			fi
		fi;
#ifdef MUTANT_PUSH_BEFORE_JOB
		/* BUG: the job becomes visible only after NewJobs looked */
		PUSH_JOB();
#endif
		n++
	:: else -> break
	od;
	pusher_done = true
}

#ifdef LATCH_SET
/* Owned.Set, NSET times, each on the latch of a worker chosen at will (a
 * job finishing the other half of a join the worker waits for): swap in
 * Set, and wake the owner (wake(i) in sleep/wake.go) only if it was
 * Sleeping. */
active proctype Setter()
{
	byte k = 0, w, old;
	bool woke = false;
	do
	:: k < NSET ->
		select (w : 0 .. NW - 1);
		atomic { old = lst[w]; lst[w] = SET };
		if
		:: old == SLEEPING -> wake(w, woke)
		:: else -> skip
		fi;
		k++
	:: else -> break
	od
}
#endif

/* (1): whenever the whole system is stuck, no job may be left */
active proctype Watchdog()
{
end:
	timeout -> assert(pusher_done && inj == 0 && dq == 0)
}

/* (2): sleepers are a subset of the inactive workers; and the JEC stays
 * within the bound that makes the no-wrap abstraction honest */
active proctype CountersSane()
{
end:
#ifndef MUTANT_NO_WORKFOUND_RECHECK
	/* each job found, and each latch exit, may bump the JEC once more */
#ifdef LATCH_SET
	atomic { (sleeping > inactive || jec > 4 * NPUSH + 2 * NSET) -> assert(false) }
#else
	atomic { (sleeping > inactive || jec > 4 * NPUSH) -> assert(false) }
#endif
#else
	atomic { (sleeping > inactive || jec > 2 * NPUSH) -> assert(false) }
#endif
}
