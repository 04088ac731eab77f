/*
 * latch.pml -- the core latch protocol of weft (latch.Core + the owner's
 * sleep mutex/condvar), checked with spin.
 *
 *   spin -a latch.pml && gcc -O2 -o pan pan.c && ./pan
 *   spin -DMUTANT_SET_NO_LOCK -a latch.pml && ...   (a deliberately broken variant)
 *
 * Processes: the Owner waits for the latch; the Setter sets it once; the
 * Waker models other wakeups of the same worker (new work posted by the
 * sleep module), which clear `blocked` without setting the latch.
 *
 * Properties
 *  (a) no lost wakeup.  Every process but the Owner terminates, and (see the
 *      NP run in check.sh, which finds no cycle at all) every execution of
 *      this model is finite.  So "the owner eventually finishes" is the same
 *      as "every terminal state has the owner at its end".  The owner's
 *      only blocking points (the condvar wait and the mutex) carry no end
 *      label, so spin's invalid-end-state check (on by default) reports any
 *      terminal state in which the owner is stuck, i.e. waits forever.
 *      A lost wakeup is exactly such a state: setter done, latch SET, owner
 *      in cond.Wait with nobody left to signal it.
 *  (b) SET is final: the monitor SetIsFinal asserts that once the setter's
 *      swap has stored SET, the state word never holds anything else.
 *
 * Mutants (each must be rejected; see README.md):
 *  MUTANT_SET_NO_LOCK          setter clears blocked and signals without mu   -> (a)
 *  MUTANT_SLEEPING_BEFORE_LOCK owner CASes SLEEPY->SLEEPING before lock(mu)   -> (a)
 *  MUTANT_WAKE_ON_SLEEPY       setter wakes the owner when old==SLEEPY, not
 *                              when old==SLEEPING                            -> (a)
 *  MUTANT_STORE_SLEEPING       owner stores SLEEPING instead of CASing from
 *                              SLEEPY (can overwrite SET)                    -> (b), (a)
 *  MUTANT_WAKEUP_STORE         owner stores UNSET on waking instead of CASing
 *                              from SLEEPING (can overwrite SET)             -> (b)
 */

#define UNSET    0
#define SLEEPY   1
#define SLEEPING 2
#define SET      3

#ifndef NWAKES
#define NWAKES 2          /* how many times the other waker runs */
#endif

byte state = UNSET;       /* latch.Core.state */
bool was_set = false;     /* ghost: the setter's swap has happened */

/* the owner worker's sleep state */
bool mu = false;          /* sync.Mutex: true while held */
bool blocked = false;     /* guarded by mu */

/* sync.Cond with a single possible waiter (the owner). Go's cond.Wait
 * enqueues the caller on the notify list and releases the mutex (we do both
 * in one atomic step, as the enqueue happens while the mutex is held), then
 * parks until a Signal dequeues it, then re-locks the mutex. A Signal that
 * finds nobody enqueued is lost. Go's Cond has no spurious wakeups. */
bool waiting = false;     /* owner is on the notify list */
bool signalled = false;   /* owner was dequeued by a Signal, not yet resumed */

bool owner_done = false;

inline lock()   { atomic { !mu -> mu = true } }
inline unlock() { assert(mu); mu = false }

inline cond_wait() {
	atomic { assert(mu); waiting = true; mu = false };
	/* parked: no end label here -- being stuck here is a lost wakeup */
	atomic { signalled -> signalled = false };
	lock()
}

inline cond_signal() {
	atomic {
		if
		:: waiting -> waiting = false; signalled = true
		:: else -> skip       /* nobody waiting: the signal is lost */
		fi
	}
}

/* wake(i) in sleep/wake.go: clear blocked under mu; signal after unlock,
 * and only if this waker was the one that cleared it */
inline wake_owner() {
	lock();
	if
	:: blocked -> blocked = false; woke = true
	:: else -> woke = false
	fi;
	unlock();
	if
	:: woke -> cond_signal()
	:: else -> skip
	fi
}

/* CAS on the state word: one indivisible step */
#define CAS(old, new, ok) atomic { if :: state == old -> state = new; ok = true :: else -> ok = false fi }

#ifndef NABORT
#define NABORT 1          /* times the owner gives up sleeping at step 4 */
#endif

active proctype Owner()
{
	bool ok;
	byte aborts = 0;
loop:
	/* Probe */
	if
	:: state == SET -> goto done
	:: else -> skip
	fi;
	/* GetSleepy */
	CAS(UNSET, SLEEPY, ok);
	if
	:: !ok -> goto loop       /* someone set it */
	:: else -> skip
	fi;
#ifdef MUTANT_SLEEPING_BEFORE_LOCK
	/* BUG: Sleeping is published before the owner holds mu, so a setter
	 * can take mu, find blocked == false and leave before we block. */
	CAS(SLEEPY, SLEEPING, ok);
	lock();
	if
	:: !ok -> unlock(); goto loop
	:: else -> skip
	fi;
#else
	lock();
	/* FallAsleep */
#ifdef MUTANT_STORE_SLEEPING
	/* BUG: a plain load-check-store instead of a CAS: the setter's swap can
	 * land between the check and the store, and the store overwrites SET. */
	if
	:: state == SLEEPY -> ok = true
	:: else -> ok = false
	fi;
	if
	:: ok -> state = SLEEPING
	:: else -> skip
	fi;
#else
	CAS(SLEEPY, SLEEPING, ok);
#endif
	if
	:: !ok -> unlock(); goto loop   /* set in between */
	:: else -> skip
	fi;
#endif
	/* Step 4 of docs/latch.md (sleep.go's failed registerSleeping): the
	 * sleep protocol may decide not to sleep after all: CAS Sleeping->Unset
	 * (fails harmlessly if Set), unlock, search again. Bounded by NABORT so
	 * that the model stays finite. */
	if
	:: aborts < NABORT ->
		aborts++;
		CAS(SLEEPING, UNSET, ok);
		unlock();
		goto loop
	:: true -> skip
	fi;
	blocked = true;
	do
	:: blocked -> cond_wait()
	:: else -> break
	od;
	/* WakeUp: fails harmlessly if SET */
#ifdef MUTANT_WAKEUP_STORE
	/* BUG: a plain store instead of CAS(SLEEPING, UNSET) overwrites SET */
	state = UNSET;
#else
	CAS(SLEEPING, UNSET, ok);
#endif
	unlock();
	goto loop;
done:
	owner_done = true
}

active proctype Setter()
{
	byte old;
	bool woke;
	d_step { old = state; state = SET; was_set = true };   /* Swap */
#ifdef MUTANT_WAKE_ON_SLEEPY
	/* BUG: wakes on the wrong state: an owner that is past Sleepy (in or on
	 * its way into cond.Wait) is never woken. */
	if
	:: old == SLEEPY ->
#else
	if
	:: old == SLEEPING ->
#endif
#ifdef MUTANT_SET_NO_LOCK
		/* BUG: no mu. The owner can be between its SLEEPY->SLEEPING CAS and
		 * `blocked = true`: we see blocked == false and leave, then it
		 * blocks forever. */
		if
		:: blocked -> blocked = false; cond_signal()
		:: else -> skip
		fi
#else
		wake_owner()
#endif
	:: else -> skip
	fi
}

/* another waker of the same worker (the sleep module's wake(i)) */
active proctype Waker()
{
	byte n = 0;
	bool woke;
	do
	:: n < NWAKES ->
		wake_owner();
		n++
	:: else -> break
	od
}

/* (b): once the swap stored SET, nothing may change the state word */
active proctype SetIsFinal()
{
end:
	atomic { (was_set && state != SET) -> assert(false) }
}
