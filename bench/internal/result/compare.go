package result

// Comparison is a result's primary metric set against the others of the
// same run. A ratio is a factor of improvement: above 1 this result is
// better (faster, cheaper, more throughput), below 1 worse; 0 means there
// was nothing to compare with.
type Comparison struct {
	VsBaseline float64 // against the baseline of the same workload
	VsBestAlt  float64 // against the best alternative at the same worker count
	BestAlt    string  // that alternative's name
	// Trusted is false when this result or one it was compared with was
	// measured on a busy machine: the ratios are then not worth printing.
	Trusted bool
}

// Compare returns result i's comparison with the rest of the run.
func (run *Run) Compare(i int) Comparison {
	r := &run.Results[i]
	c := Comparison{Trusted: !r.Noisy}
	if base := run.baseline(r); base != nil {
		c.VsBaseline = improvement(r, r.Median(), base.Median())
		c.Trusted = c.Trusted && !base.Noisy
	}
	if alt := run.bestAlternative(r); alt != nil {
		c.VsBestAlt = improvement(r, r.Median(), alt.Median())
		c.BestAlt = alt.Contender
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
