package result

// MaxSpread is the widest spread (Summary.Spread: half the interquartile
// range over the median, the table's "±") a median may have for a ratio
// built on it to count as a result. At 0.25 the middle half of the
// repetitions spans 0.75 to 1.25 times the median, a 1.67:1 range, and
// with the 8 rounds a default run has at least, the median's own 95%
// interval (McGill's notch, ±1.57·IQR/√n) is about ±28%: wider than the
// 1.1x to 1.5x differences the ratios are read for. The quiet runs of
// docs/benchmarks.md stay under 20% on nearly every row, so the mark
// singles out the few rows that scattered, not the normal jitter of a
// shared machine.
const MaxSpread = 0.25

// TooWide reports whether a median with this spread is too scattered to
// support a ratio.
func TooWide(spread float64) bool { return spread > MaxSpread }

// Comparison is a result's primary metric set against the others of the
// same run. A ratio is a factor of improvement: above 1 this result is
// better (faster, cheaper, more throughput), below 1 worse; 0 means there
// was nothing to compare with.
type Comparison struct {
	VsBaseline float64 // against the baseline of the same workload; 0 for a baseline
	VsBestAlt  float64 // against the best alternative at the same worker count
	BestAlt    string  // that alternative's name
	// Trusted is false when this result or one it was compared with was
	// measured on a busy machine: the ratios are then not worth printing.
	Trusted bool
	// BaselineSpread and AltSpread are the wider of the two spreads behind
	// VsBaseline and VsBestAlt: a ratio is as scattered as its worse side.
	BaselineSpread, AltSpread float64
}

// Compare returns result i's comparison with the rest of the run. A
// baseline is not compared with the baseline of another worker count:
// that figure would read as a speedup it is not.
func (run *Run) Compare(i int) Comparison {
	r := &run.Results[i]
	c := Comparison{Trusted: !r.Noisy}
	if base := run.baseline(r); base != nil && r.Role != Baseline {
		c.VsBaseline = improvement(r, r.Median(), base.Median())
		c.BaselineSpread = max(r.Spread(), base.Spread())
		c.Trusted = c.Trusted && !base.Noisy
	}
	if alt := run.bestAlternative(r); alt != nil {
		c.VsBestAlt = improvement(r, r.Median(), alt.Median())
		c.BestAlt = alt.Contender
		c.AltSpread = max(r.Spread(), alt.Spread())
		c.Trusted = c.Trusted && !alt.Noisy
	}
	return c
}

// Speedup returns result i's primary median against its baseline's, as
// improvement factor, and whether there is a baseline; a baseline's own
// speedup is 1.
func (run *Run) Speedup(i int) (float64, bool) {
	r := &run.Results[i]
	if r.Role == Baseline {
		return 1, true
	}
	base := run.baseline(r)
	if base == nil {
		return 0, false
	}
	return improvement(r, r.Median(), base.Median()), true
}

// baseline returns the baseline result of r's workload: the one measured
// with r's worker count if there is one (efficiency workloads measure
// their baseline at every GOMAXPROCS, since the runtime's own idle cost
// depends on it), else the one measured once.
func (run *Run) baseline(r *Result) *Result {
	var any *Result
	for i := range run.Results {
		b := &run.Results[i]
		if b.Role != Baseline || b.Suite != r.Suite || b.Workload != r.Workload || b == r {
			continue
		}
		if b.Workers == r.Workers {
			return b
		}
		if any == nil {
			any = b
		}
	}
	return any
}

// bestAlternative returns the alternative with the best primary median
// among those of r's workload and worker count, r itself excepted.
func (run *Run) bestAlternative(r *Result) *Result {
	var best *Result
	for i := range run.Results {
		a := &run.Results[i]
		if a == r || a.Role != Alternative || a.Suite != r.Suite || a.Workload != r.Workload || a.Workers != r.Workers {
			continue
		}
		if best == nil || improvement(r, a.Median(), best.Median()) > 1 {
			best = a
		}
	}
	return best
}

// improvement returns how many times better x is than ref under r's
// primary metric.
func improvement(r *Result, x, ref float64) float64 {
	if x == 0 || ref == 0 {
		return 0
	}
	if r.Metrics[0].Better == Higher {
		return x / ref
	}
	return ref / x
}
