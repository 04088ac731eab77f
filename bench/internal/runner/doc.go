// Package runner measures cases: it sets the worker count, starts the
// contenders, warms them up, repeats the measurements, and watches the
// machine for noise while it does.
//
// # Interleaving
//
// The cases of one workload that may share the process (the fork-join
// ones: an idle pool costs them nothing) form a bout and are measured
// round-robin: each round runs every case for a slice of time, and the
// rounds repeat. A machine that slows down halfway through, because a
// neighbour starts a build or the host throttles, then slows every
// contender alike instead of the ones that happened to run late, and the
// ratios between them stay honest. Cases whose figure is the whole
// process's idle cost (efficiency, admission) cannot share it with other
// contenders' pools, so each is a bout of its own.
//
// # Noise
//
// The probe watches a whole bout, from the first measured round to the
// last, and the figure applies to every case in it. A noisy bout is
// measured again up to Options.Retries times, and the quietest attempt is
// kept, all its cases together, so that ratios always compare figures of
// the same attempt.
package runner
