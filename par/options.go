package par

import (
	"strconv"
	"time"

	"github.com/weftrt/weft/internal/clock"
)

// Option tunes how a loop is cut into chunks.
type Option func(*config)

// DefaultInlineLen is the length at or below which a loop runs inline, as
// one chunk, with no fork and no clock read, unless MinLen is set. Such a
// loop of cheap elements costs less than reading the clock twice; a loop
// of a few expensive elements should say MinLen(1).
const DefaultInlineLen = 16

// config is the outcome of a loop's options.
type config struct {
	minLen    int // chunks are never cut shorter; 1 unless set
	inlineLen int // a loop this short runs inline
	maxLen    int // chunks are cut at least this short; 0 means no bound
	setMin    bool
	// probed says the loop's first pieces were timed already (on the
	// calling goroutine, by an On form: see chunksOn), at perElem
	// nanoseconds an element: run splits at once, with that cost.
	probed  bool
	perElem float64
	// clock replaces the probe's clock (clock.Now) in tests; nil in use.
	clock func() time.Duration
	// clockRead is what a read of clock costs, as the test sets it.
	clockRead time.Duration
}

// now reads the probe's clock.
func (c *config) now() time.Duration { return readClock(c.clock) }

// readCost is what a read of the probe's clock adds to a timing: the
// clock package's ReadCost, or what a test says its clock's reads cost.
func (c *config) readCost() time.Duration {
	if c.clock != nil {
		return c.clockRead
	}
	return clock.ReadCost()
}

// readClock reads the test's clock, or the monotonic clock (clock.Now)
// if it is nil.
func readClock(test func() time.Duration) time.Duration {
	if test != nil {
		return test()
	}
	return clock.Now()
}

// MinLen sets the shortest chunk: a range is never split into halves
// shorter than n elements (a range of fewer than 2n is not split), and a
// loop of at most n elements runs inline on the calling worker. It also
// says the caller knows the work: the loop skips the probe that times its
// first elements (docs/loops.md) and splits at once, down to n
// elements or n / (64 × workers), whichever is longer.
// MinLen(1) says that every element is worth a fork of its own: even a
// loop of two elements runs in parallel. Batches taken from an iter.Seq
// hold n items. MinLen panics if n < 1, naming n.
func MinLen(n int) Option {
	if n < 1 {
		panic("weft/par: MinLen(" + strconv.Itoa(n) + "): a chunk holds at least 1 element; " +
			"MinLen(1) lets every element be a chunk of its own")
	}
	return func(c *config) {
		c.minLen = n
		c.inlineLen = n
		c.setMin = true
	}
}

// MaxLen sets the longest chunk: ranges are split until they hold at most
// n elements, whatever the loop's timing suggests, and ForEachSeq's
// batches hold at most n items. Use it when elements are so uneven that a
// few chunks would hold most of the work. MaxLen panics if n < 1, naming
// n; without MaxLen, chunks have no bound.
//
// A loop given both MinLen and MaxLen panics as it starts, before any
// element runs, if MinLen is the longer. MinLen wins where a range cannot
// meet both: MinLen(4) and MaxLen(5) leave a range of 6 whole, since it
// has no halves of 4.
func MaxLen(n int) Option {
	if n < 1 {
		panic("weft/par: MaxLen(" + strconv.Itoa(n) + "): a chunk holds at least 1 element; " +
			"leave MaxLen out for no bound")
	}
	return func(c *config) { c.maxLen = n }
}

// defaultConfig is the config of a loop without options. The On forms
// pass it by pointer down their long path, which only reads it.
var defaultConfig = config{minLen: 1, inlineLen: DefaultInlineLen}

func newConfig(opts []Option) config {
	if len(opts) == 0 {
		// Apart from applyOptions, whose config escapes to the heap
		// through the option calls: a loop without options allocates
		// no config.
		return defaultConfig
	}
	return applyOptions(opts)
}

func applyOptions(opts []Option) config {
	c := defaultConfig
	for i, o := range opts {
		if o == nil {
			panic("weft/par: option " + strconv.Itoa(i+1) + " of " + strconv.Itoa(len(opts)) + " is nil: want an Option such as MinLen(n) or MaxLen(n)")
		}
		o(&c)
	}
	if c.maxLen > 0 {
		if c.minLen > c.maxLen {
			panic("weft/par: MinLen(" + strconv.Itoa(c.minLen) + ") with MaxLen(" + strconv.Itoa(c.maxLen) +
				"): the shortest chunk would be longer than the longest")
		}
		// MaxLen bounds the inline loop and the probe's pieces too.
		c.inlineLen = min(c.inlineLen, c.maxLen)
	}
	return c
}

// grain is the chunk length for n elements that cost about perElem
// nanoseconds each on a pool of workers (docs/loops.md): n cut into about
// leavesPerWorker chunks per worker for balance, but no chunk cheaper than
// leafWork, so that forks stay a small fraction of the work, and none
// dearer than leafMaxWork while the loop has elements to spare (at most
// maxLeavesPerWorker chunks per worker), so that a thief never waits long
// for its victim's next join; then bounded by maxLen and minLen.
func (c config) grain(n, workers int, perElem float64) int {
	g := n / (workers * leavesPerWorker)
	if perElem > 0 {
		g = max(g, int(float64(leafWork)/perElem))
		g = min(g, max(n/(workers*maxLeavesPerWorker), int(float64(leafMaxWork)/perElem)))
	}
	if c.maxLen > 0 {
		g = min(g, c.maxLen)
	}
	return max(g, c.minLen)
}
