// Package sleep decides when an idle worker of a work-stealing pool may
// block, and whom to wake when work appears, so that an idle pool burns
// no CPU and new work still starts at once. Users configure it through
// scheduler.WithSleep (Tunables); the rest is for people who build a
// pool on weft's deques and latches, as weft's own engine does.
//
// # The protocol
//
// One atomic 64-bit word holds a jobs event counter (JEC) and the counts
// of inactive (searching or sleeping) and sleeping workers (Layout prints
// the bit map). A worker out of work calls StartLooking and searches;
// after each fruitless search it calls NoWorkFound, which pauses briefly
// for Tunables.SearchRounds rounds (and, while another worker is busy
// and the pool's hint says a fork is coming, SpinWhile, for
// Tunables.BusySpin more), then announces that the worker is
// sleepy (an odd-to-even step of the JEC), lets it search once more
// (Idle.Final reports that round, which must sweep every deque), and only
// then blocks on the worker's own condition variable, provided the JEC
// has not moved since the announcement. A poster of new work calls
// NewJobs after queueing it: that bumps the JEC if a worker is sleepy (so
// the sleepy worker's registration fails and it searches again), and
// wakes only as many sleepers as the awake idle
// workers cannot cover. A
// worker waiting on a latch sleeps on the same condition variable, and
// the latch's Set wakes exactly that worker (package latch).
//
// docs/sleep.md specifies the protocol and argues why no wake-up is
// lost; docs/models/sleep.pml checks it with spin, together with the
// latch protocol.
package sleep
