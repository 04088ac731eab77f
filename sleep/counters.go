package sleep

import (
	"fmt"
	"strings"
	"sync/atomic"
)

// The layout of the counters word. Everything else is derived from these
// three widths; TestLayout checks them and TestDocBitMap checks the bit map
// on the counters type against Layout.
const (
	// workerBits is the width of each worker count.
	workerBits = 16
	// sleepingShift is where the count of sleeping workers starts.
	sleepingShift = 0
	// inactiveShift is where the count of inactive (idle) workers starts.
	inactiveShift = sleepingShift + workerBits
	// jecShift is where the jobs event counter starts; it takes the rest.
	jecShift = inactiveShift + workerBits
	// jecBits is the width of the jobs event counter.
	jecBits = 64 - jecShift

	workerMask  = 1<<workerBits - 1
	oneSleeping = 1 << sleepingShift
	oneInactive = 1 << inactiveShift
	oneJEC      = 1 << jecShift
)

// MaxWorkers is the most workers one Sleep can count.
const MaxWorkers = workerMask

// counters is the one word every worker's idle transitions and every job
// post meet in.
//
//	bits 63..32  jobs event counter (JEC), 32 bits
//	bits 31..16  inactive workers, 16 bits
//	bits 15..0   sleeping workers, 16 bits
//
// Inactive workers are those searching for work or sleeping; sleeping
// workers are a subset of them, so inactive >= sleeping always holds (a
// worker counts itself inactive before it can count itself sleeping, and
// stops sleeping before it stops being inactive).
//
// The JEC's parity says whether a worker is getting sleepy: even means some
// worker announced sleepiness and no job was posted since; odd means jobs
// were posted since the last announcement. Posting a job bumps an even JEC
// to odd and leaves an odd one alone, so in steady state (nobody sleepy) a
// post is one load and no read-modify-write. The JEC wraps around after
// 2^32 bumps; a wrong "unchanged" verdict needs exactly 2^32 bumps inside
// one worker's few-microsecond window between announcing and sleeping,
// and each bump needs an announcement between, so it cannot happen.
type counters struct {
	word atomic.Uint64
}

// snapshot is one read of the counters word.
type snapshot uint64

func (s snapshot) sleeping() int     { return int(uint64(s) >> sleepingShift & workerMask) }
func (s snapshot) inactive() int     { return int(uint64(s) >> inactiveShift & workerMask) }
func (s snapshot) jec() jec          { return jec(uint64(s) >> jecShift) }
func (s snapshot) awakeButIdle() int { return s.inactive() - s.sleeping() }

// jec is a value of the jobs event counter.
type jec uint32

// sleepy reports whether a worker announced sleepiness since the last post.
func (j jec) sleepy() bool { return j&1 == 0 }

func (c *counters) load() snapshot { return snapshot(c.word.Load()) }

// addInactive counts a worker that starts searching. The add is an atomic
// RMW: each idle transition changes the word exactly once.
func (c *counters) addInactive() { c.word.Add(oneInactive) }

// subInactive counts a worker that found work (or whose latch was set),
// and returns the word afterwards.
func (c *counters) subInactive() snapshot { return snapshot(c.word.Add(^uint64(oneInactive - 1))) }

// subSleeping is called by the waker, under the sleeper's mutex, when it
// clears the sleeper's blocked flag: the count drops exactly once per sleep
// because only the goroutine that sees blocked == true clears it.
func (c *counters) subSleeping() { c.word.Add(^uint64(oneSleeping - 1)) }

// tryAddSleeping counts the caller as sleeping, but only if the word still
// equals old, whose JEC is the one the caller saw when it got sleepy. A
// failed CAS because another worker changed its counts is retried by the
// caller; a changed JEC means a job was posted and the caller must not
// sleep.
func (c *counters) tryAddSleeping(old snapshot) bool {
	return c.word.CompareAndSwap(uint64(old), uint64(old)+oneSleeping)
}

// announceSleepy makes the JEC even, unless it already is, and returns
// the word afterwards. A worker calls it once per trip toward sleep; the
// value it returns is what tryAddSleeping later compares against.
func (c *counters) announceSleepy() snapshot {
	return c.bumpJECIf(false)
}

// postJobs makes the JEC odd if a worker is sleepy and returns the word
// afterwards, so that every sleepy worker's tryAddSleeping fails.
func (c *counters) postJobs() snapshot {
	return c.bumpJECIf(true)
}

// bumpJECIf increments the JEC if its sleepiness equals sleepy. It loads
// first and writes only when it must, which keeps a steady-state post
// (JEC already odd) free of read-modify-writes.
func (c *counters) bumpJECIf(sleepy bool) snapshot {
	for {
		old := c.load()
		if old.jec().sleepy() != sleepy {
			return old
		}
		// Adding oneJEC carries out of bit 63 on wrap-around and leaves
		// the worker counts untouched.
		next := snapshot(uint64(old) + oneJEC)
		if c.word.CompareAndSwap(uint64(old), uint64(next)) {
			return next
		}
	}
}

// Layout returns a picture of the one 64-bit word that holds the sleep
// counters: which bits count the jobs events, the inactive workers and the
// sleeping workers. It is for reading a counters value in a debugger or a
// log beside docs/sleep.md; the package's own comment shows the same
// picture, and a test keeps the two equal.
func Layout() string {
	var b strings.Builder
	fields := []struct {
		shift, bits int
		name        string
	}{
		{jecShift, jecBits, "jobs event counter (JEC)"},
		{inactiveShift, workerBits, "inactive workers"},
		{sleepingShift, workerBits, "sleeping workers"},
	}
	for _, f := range fields {
		bits := fmt.Sprintf("bits %d..%d", f.shift+f.bits-1, f.shift)
		fmt.Fprintf(&b, "%-12s %s, %d bits\n", bits, f.name, f.bits)
	}
	return b.String()
}
