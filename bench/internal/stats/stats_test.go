package stats_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/weftrt/weft/bench/internal/stats"
)

func TestSummarize(t *testing.T) {
	tests := []struct {
		name string
		xs   []float64
		want stats.Summary
	}{
		{"one value", []float64{7}, stats.Summary{N: 1, Median: 7, Min: 7, Max: 7, Q1: 7, Q3: 7}},
		{"odd count, unsorted", []float64{5, 1, 3}, stats.Summary{N: 3, Median: 3, Min: 1, Max: 5, Q1: 2, Q3: 4}},
		{"even count interpolates", []float64{4, 1, 3, 2}, stats.Summary{N: 4, Median: 2.5, Min: 1, Max: 4, Q1: 1.75, Q3: 3.25}},
		{"outlier moves the median one rank", []float64{10, 10, 11, 12, 1000}, stats.Summary{N: 5, Median: 11, Min: 10, Max: 1000, Q1: 10, Q3: 12}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, stats.Summarize(tt.xs))
		})
	}
}

func TestSummarizeLeavesInputAlone(t *testing.T) {
	xs := []float64{3, 1, 2}
	stats.Summarize(xs)
	assert.Equal(t, []float64{3, 1, 2}, xs)
}

func TestSummarizeEmpty(t *testing.T) {
	s := stats.Summarize(nil)
	assert.Zero(t, s.N)
	assert.True(t, math.IsNaN(s.Median))
	assert.True(t, math.IsNaN(stats.Quantile(nil, 0.5)))
}

func TestQuantileEnds(t *testing.T) {
	sorted := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}
	assert.Equal(t, 1.0, stats.Quantile(sorted, 0))
	assert.Equal(t, 11.0, stats.Quantile(sorted, 1))
	assert.InDelta(t, 10.9, stats.Quantile(sorted, 0.99), 1e-9)
}

func TestSpreadAndIQR(t *testing.T) {
	s := stats.Summarize([]float64{90, 100, 110})
	assert.InDelta(t, 10.0, s.IQR(), 1e-12)
	assert.InDelta(t, 0.05, s.Spread(), 1e-12)
	s = stats.Summarize([]float64{99, 100, 100, 100, 101, 1e6})
	assert.Less(t, s.Spread(), 0.01, "one outlier does not widen the spread")
	assert.Zero(t, stats.Summary{}.Spread(), "a zero median must not divide by zero")
}
