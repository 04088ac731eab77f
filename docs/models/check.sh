#!/usr/bin/env bash
# Model-checks docs/models/*.pml with spin: every correct configuration must
# verify with 0 errors, every mutant must be rejected with the kind of error
# its comment promises. Run from the repository root:
#
#   bash docs/models/check.sh
#
# Needs spin and gcc. Prints one line per run and a final tally.
set -euo pipefail

models="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
command -v spin >/dev/null || { echo "check.sh: spin not found (apt-get install spin)" >&2; exit 2; }
command -v gcc  >/dev/null || { echo "check.sh: gcc not found" >&2; exit 2; }

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

passed=0
failed=0

# Patterns for the error pan must report.
DEADLOCK='invalid end state'                 # a process stuck outside an end label
ASSERT='assertion violated'                  # any assertion
STRANDED='assertion violated .*inj==0'       # the Watchdog: a job left with everyone asleep
SETFINAL='assertion violated 0'              # latch.pml's SetIsFinal monitor
RUNTWICE='assertion violated \(ran\[i\]==0\)'   # forks.pml (a): a half ran twice
EARLYREAD='assertion violated \(result\[i\]==gen\[i\]\)'  # forks.pml (b): result not (yet) the current use's
FOREIGNPOP='assertion violated \(x==i\)'        # forks.pml (c): pop found another fork
PRIVBELOW='assertion violated \(state\[below\]!=1\)'    # forks.pml (e): a private fork below oldest
STALEINPUT='assertion violated \(input\[x\]==gen\[x\]\)' # forks.pml (f): a thief found stale inputs
LOSTREQ='assertion violated \(\(inactive==0\)\|\|\(gate!=0\)\)' # gate.pml: a request for forks lost

# run MODEL VARIANT MODE EXPECT [spin -D flags...]
#   MODE:   safety (exhaustive, deadlocks + assertions)
#           cycles (-DNP, ./pan -l: any cycle at all is reported, as the
#                   models have no progress labels)
#   EXPECT: "ok" for 0 errors, otherwise errors >= 1 and an ERE that pan's
#           report of the error it found (its "pan:1: ..." line) must match
run() {
	local model="$1" variant="$2" mode="$3" expect="$4"
	shift 4
	local dir="$work/$model-$variant"
	mkdir -p "$dir"
	local cflags=(-O2 -w -DMEMLIM=2048) panflags=(-m100000)
	case "$mode" in
	safety) cflags+=(-DSAFETY) ;;
	cycles) cflags+=(-DNP); panflags+=(-l) ;;
	esac
	local out="" why=""
	if ! (cd "$dir" && spin "$@" -a "$models/$model.pml") >"$dir/spin.log" 2>&1; then
		why="spin -a failed: $(tail -n 3 "$dir/spin.log" | tr '\n' ' ')"
	elif ! (cd "$dir" && gcc "${cflags[@]}" -o pan pan.c) >"$dir/gcc.log" 2>&1; then
		why="gcc failed: $(tail -n 3 "$dir/gcc.log" | tr '\n' ' ')"
	else
		# pan exits 0 even when it finds errors; we parse its report
		out="$(cd "$dir" && ./pan "${panflags[@]}" 2>&1)" || true
	fi
	local states errors
	states="$(sed -nE 's/^ *([0-9]+) states, stored.*/\1/p' <<<"$out" | head -n 1)"
	errors="$(sed -nE 's/.*errors: ([0-9]+).*/\1/p' <<<"$out" | head -n 1)"
	if [[ -z "$why" ]]; then
		if [[ -z "$errors" || -z "$states" ]]; then
			why="could not parse pan output: $(tail -n 3 <<<"$out" | tr '\n' ' ')"
		elif grep -qE 'max search depth too small|out of memory|memory limit' <<<"$out"; then
			why="search incomplete (depth or memory limit)"
		elif [[ "$expect" == ok ]]; then
			((errors == 0)) || why="expected 0 errors: $(grep -m1 -E 'pan:1:|pan: ' <<<"$out")"
		else
			if ((errors == 0)); then
				why="mutant not rejected"
			elif ! grep -E '^pan:1:' <<<"$out" | grep -qE "$expect"; then
				why="rejected for the wrong reason: $(grep -m1 'pan:1:' <<<"$out")"
			fi
		fi
	fi
	if [[ -z "$why" ]]; then
		echo "$model $variant: OK ($states states stored, errors=$errors)"
		passed=$((passed + 1))
	else
		echo "$model $variant: FAIL ($why)"
		failed=$((failed + 1))
	fi
}

# --- latch.pml ------------------------------------------------------------
run latch correct   safety ok
run latch no-cycles cycles ok
run latch MUTANT_SET_NO_LOCK          safety "$DEADLOCK"            -DMUTANT_SET_NO_LOCK
run latch MUTANT_SLEEPING_BEFORE_LOCK safety "$DEADLOCK"            -DMUTANT_SLEEPING_BEFORE_LOCK
run latch MUTANT_WAKE_ON_SLEEPY       safety "$DEADLOCK"            -DMUTANT_WAKE_ON_SLEEPY
run latch MUTANT_STORE_SLEEPING       safety "$SETFINAL|$DEADLOCK"  -DMUTANT_STORE_SLEEPING
run latch MUTANT_WAKEUP_STORE         safety "$SETFINAL"            -DMUTANT_WAKEUP_STORE

# --- sleep.pml ------------------------------------------------------------
run sleep correct    safety ok                  # the protocol as sleep.go has it
run sleep RECHECK    safety ok -DRECHECK        # plus Rayon's injector re-check
run sleep no-cycles  cycles ok
run sleep MUTANT_PUSH_NO_JEC          safety "$STRANDED" -DMUTANT_PUSH_NO_JEC
run sleep MUTANT_NO_JEC_CHECK         safety "$STRANDED" -DMUTANT_NO_JEC_CHECK
run sleep MUTANT_NO_FINAL_SEARCH      safety "$STRANDED" -DMUTANT_NO_FINAL_SEARCH
run sleep MUTANT_SAMPLED_FINAL_SEARCH safety "$STRANDED" -DMUTANT_SAMPLED_FINAL_SEARCH
run sleep MUTANT_PUSH_BEFORE_JOB      safety "$STRANDED" -DMUTANT_PUSH_BEFORE_JOB
run sleep MUTANT_REGISTER_BEFORE_LOCK safety "$STRANDED" -DMUTANT_REGISTER_BEFORE_LOCK
run sleep MUTANT_IDLE_COUNTS_SLEEPERS safety "$STRANDED" -DMUTANT_IDLE_COUNTS_SLEEPERS
run sleep BUSY_JOBS   safety ok -DBUSY_JOBS      # a job may run for good
run sleep MUTANT_NO_WORKFOUND_RECHECK safety "$STRANDED" -DBUSY_JOBS -DMUTANT_NO_WORKFOUND_RECHECK
# latch sets inside the sleep protocol: a worker may leave its search on its latch
run sleep LATCH_SET           safety ok -DLATCH_SET -DBUSY_JOBS -DNPUSH=1
run sleep LATCH_SET-no-cycles cycles ok -DLATCH_SET -DBUSY_JOBS -DNPUSH=1
run sleep MUTANT_LATCH_EXIT_NO_RECHECK safety "$STRANDED" -DLATCH_SET -DBUSY_JOBS -DNPUSH=1 -DMUTANT_LATCH_EXIT_NO_RECHECK

# --- forks.pml ------------------------------------------------------------
# N=3 joins down, REFORKS=2 joins on the way up that reuse a frame
run forks correct   safety ok
run forks N4        safety ok -DN=4 -DREFORKS=1
run forks no-cycles cycles ok -DREFORKS=1          # REFORKS=2 needs more than MEMLIM
run forks MUTANT_RECLAIM_AS_PRIVATE  safety "$FOREIGNPOP|$RUNTWICE"  -DMUTANT_RECLAIM_AS_PRIVATE
run forks MUTANT_PUBLISH_KEEPS_STATE safety "$PRIVBELOW|$RUNTWICE"   -DMUTANT_PUBLISH_KEEPS_STATE
run forks MUTANT_EMPTY_POP_INLINE    safety "$RUNTWICE"   -DMUTANT_EMPTY_POP_INLINE
run forks MUTANT_LATCH_BEFORE_RESULT safety "$EARLYREAD"  -DMUTANT_LATCH_BEFORE_RESULT
run forks MUTANT_PUBLISH_NEWEST      safety "$FOREIGNPOP" -DMUTANT_PUBLISH_NEWEST
run forks MUTANT_POP_LAST_NO_CAS     safety "$RUNTWICE"   -DMUTANT_POP_LAST_NO_CAS
run forks MUTANT_NO_LATCH_RESET      safety "$EARLYREAD"  -DMUTANT_NO_LATCH_RESET
run forks MUTANT_UNFORK_KEEPS_OLDEST safety "$PRIVBELOW"  -DMUTANT_UNFORK_KEEPS_OLDEST
run forks MUTANT_INPUTS_AFTER_FORK   safety "$STALEINPUT" -DMUTANT_INPUTS_AFTER_FORK

# --- gate.pml -------------------------------------------------------------
run gate correct   safety ok
run gate CHECKS3   safety ok -DCHECKS=3 -DTHIEVES=3
run gate no-cycles cycles ok
run gate MUTANT_COUNTERS_FIRST safety "$LOSTREQ" -DMUTANT_COUNTERS_FIRST
run gate MUTANT_ASK_FIRST      safety "$LOSTREQ" -DMUTANT_ASK_FIRST
run gate MUTANT_STORE_GATE     safety "$LOSTREQ" -DMUTANT_STORE_GATE

echo "spin: $passed passed, $failed failed"
((failed == 0))
