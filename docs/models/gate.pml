/*
 * gate.pml -- the gate that lets a busy worker run deep joins as plain
 * calls without counting toward its heartbeat (internal/core/gate.go,
 * heartbeat.go), checked with spin.
 *
 *   spin -a gate.pml && gcc -O2 -o pan pan.c && ./pan
 *   spin -DMUTANT_COUNTERS_FIRST -a gate.pml && ...   (a broken variant)
 *
 * The Owner is a busy worker. It makes CHECKS heartbeat checks; each takes
 * the requests (clears gateWanted), loads the count of idle workers, and
 * sets gateOwner if it saw one (it keeps counting, and will check again)
 * or clears it if not (its deep joins then read the gate and nothing
 * else, and it checks again only once the gate is set). Each Thief is a
 * worker that goes idle at any moment: it counts itself idle
 * (sleep.StartLooking), finds no job, and asks (askForForks): it loads the
 * gate and sets gateWanted if the bit is clear.
 *
 * Every operation on the gate and on the count is one step: they are
 * sequentially consistent sync/atomic operations in the Go code.
 *
 * Property: no request is lost. When everyone has stopped, if a worker is
 * idle, the owner's gate is not zero: the owner, whose checks the model
 * stops early, would check again at its next join. A zero gate with an
 * idle worker is the state the gate exists to prevent: the owner running
 * plain joins for the rest of its recursion while a worker waits.
 *
 * Mutants (each must be rejected; see check.sh):
 *  MUTANT_COUNTERS_FIRST  the check loads the idle count before it takes
 *                         the requests
 *  MUTANT_ASK_FIRST       a thief asks before it counts itself idle
 *  MUTANT_STORE_GATE      the check stores the whole gate (clearing a
 *                         request that came in meanwhile) instead of
 *                         clearing and setting gateOwner alone
 */

#ifndef CHECKS
#define CHECKS 2
#endif
#ifndef THIEVES
#define THIEVES 2
#endif

#define OWNER  1          /* gateOwner */
#define WANTED 2          /* gateWanted */

byte gate = 0;            /* Worker.gate: deep, and nobody idle at start */
byte inactive = 0;        /* the sleep counters' idle count */
byte stopped = 0;         /* ghost: processes done */

/* regate's atomic operation for the owner bit, or the mutant's store */
inline set_owner(on) {
#ifdef MUTANT_STORE_GATE
	if
	:: on -> gate = OWNER
	:: else -> gate = 0
	fi
#else
	if
	:: on -> gate = gate | OWNER
	:: else -> gate = gate & ~OWNER
	fi
#endif
}

inline take_requests() {
	if
	:: gate & WANTED -> gate = gate & ~WANTED
	:: else -> skip
	fi
}

active proctype Owner() {
	byte n = 0, seen;
	do
	:: n < CHECKS ->
		n++;
#ifdef MUTANT_COUNTERS_FIRST
		seen = inactive;
		take_requests();
#else
		take_requests();
		seen = inactive;
#endif
		set_owner(seen > 0)
	:: else -> break
	od;
	stopped++
}

active [THIEVES] proctype Thief() {
#ifdef MUTANT_ASK_FIRST
	if
	:: (gate & WANTED) == 0 -> gate = gate | WANTED
	:: else -> skip
	fi;
	inactive++;
#else
	inactive++;
	if
	:: (gate & WANTED) == 0 -> gate = gate | WANTED
	:: else -> skip
	fi;
#endif
	stopped++
}

active proctype Monitor() {
	stopped == THIEVES + 1;
	assert(inactive == 0 || gate != 0)
}
