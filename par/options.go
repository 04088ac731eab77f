package par

import "strconv"

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
}

// MinLen sets the shortest chunk: a range is never split into halves
// shorter than n elements (a range of fewer than 2n is not split), and a
// loop of at most n elements runs inline on the calling worker. It also
// says the caller knows the work: the loop skips the probe that times its
// first elements (see the package doc) and splits at once, down to n
// elements or n / (64 × workers), whichever is longer.
// MinLen(1) says that every element is worth a fork of its own: even a
// loop of two elements runs in parallel. Batches taken from an iter.Seq
// hold n items. n < 1 means 1.
func MinLen(n int) Option {
	return func(c *config) {
		c.minLen = max(n, 1)
		c.inlineLen = c.minLen
		c.setMin = true
	}
}

// MaxLen sets the longest chunk: ranges are split until they hold at most
// n elements, whatever the loop's timing suggests, and ForEachSeq's
// batches hold at most n items. Use it when elements are so uneven that a
// few chunks would hold most of the work. n < 1
// means no bound. MinLen wins if the two disagree (MinLen(4) and MaxLen(5)
// leave a range of 6 whole).
func MaxLen(n int) Option {
	return func(c *config) { c.maxLen = max(n, 0) }
}

func newConfig(opts []Option) config {
	if len(opts) == 0 {
		// Apart from applyOptions, whose config escapes to the heap
		// through the option calls: a loop without options allocates
		// no config.
		return config{minLen: 1, inlineLen: DefaultInlineLen}
	}
	return applyOptions(opts)
}

func applyOptions(opts []Option) config {
	c := config{minLen: 1, inlineLen: DefaultInlineLen}
	for i, o := range opts {
		if o == nil {
			panic("weft/par: option " + strconv.Itoa(i+1) + " of " + strconv.Itoa(len(opts)) + " is nil: want an Option such as MinLen(n) or MaxLen(n)")
		}
		o(&c)
	}
	if c.maxLen > 0 {
		// MaxLen bounds the inline loop and the probe's pieces too, and
		// MinLen wins over it.
		c.maxLen = max(c.maxLen, c.minLen)
		c.inlineLen = min(c.inlineLen, c.maxLen)
	}
	return c
}

// grain is the chunk length for n elements that cost about perElem
// nanoseconds each on a pool of workers (see doc.go): n cut into about
// leavesPerWorker chunks per worker for balance, but no chunk cheaper than
// leafWork, so that forks stay a small fraction of the work; then bounded
// by maxLen and minLen.
func (c config) grain(n, workers int, perElem float64) int {
	g := n / (workers * leavesPerWorker)
	if perElem > 0 {
		g = max(g, int(float64(leafWork)/perElem))
	}
	if c.maxLen > 0 {
		g = min(g, c.maxLen)
	}
	return max(g, c.minLen)
}
