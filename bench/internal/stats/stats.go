package stats

import (
	"math"
	"slices"
)

// Summary describes a sample of repetitions. The zero Summary describes
// an empty sample; its figures are NaN except N.
type Summary struct {
	N      int     // repetitions
	Median float64 // the 0.5 quantile
	Min    float64
	Max    float64
	Q1     float64 // the 0.25 quantile
	Q3     float64 // the 0.75 quantile
}

// Summarize returns the summary of xs, which it does not modify.
func Summarize(xs []float64) Summary {
	if len(xs) == 0 {
		nan := math.NaN()
		return Summary{Median: nan, Min: nan, Max: nan, Q1: nan, Q3: nan}
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return Summary{
		N:      len(s),
		Median: Quantile(s, 0.5),
		Min:    s[0],
		Max:    s[len(s)-1],
		Q1:     Quantile(s, 0.25),
		Q3:     Quantile(s, 0.75),
	}
}

// Quantile returns the q-quantile of sorted, interpolating linearly
// between the two nearest ranks (the method R calls type 7, and numpy's
// default), so that the median of an even sample is the mean of its two
// middle values. It returns NaN for an empty sample.
func Quantile(sorted []float64, q float64) float64 {
	if len(sorted) == 0 {
		return math.NaN()
	}
	pos := q * float64(len(sorted)-1)
	lo := int(math.Floor(pos))
	hi := min(lo+1, len(sorted)-1)
	frac := pos - float64(lo)
	return sorted[lo] + frac*(sorted[hi]-sorted[lo])
}

// IQR returns the interquartile range, Q3 - Q1.
func (s Summary) IQR() float64 { return s.Q3 - s.Q1 }

// Spread returns half the interquartile range relative to the median,
// (Q3-Q1)/2/Median: the "±" a table prints. Not the range: a case that
// repeats a thousand times meets a preempted run or two, and one outlier
// would set the range but moves the quartiles hardly at all.
func (s Summary) Spread() float64 {
	if s.Median == 0 {
		return 0
	}
	return s.IQR() / 2 / math.Abs(s.Median)
}
