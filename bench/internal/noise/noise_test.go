package noise_test

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/weftrt/weft/bench/internal/noise"
)

// stat builds a /proc/stat text from per-CPU user and idle ticks, with a
// few more columns set so that the busy sum is visible to the test.
func stat(cpus ...[2]int) string {
	var b strings.Builder
	b.WriteString("cpu  999 0 999 999 0 0 0 0 0 0\n") // aggregate: must be ignored
	for i, c := range cpus {
		// user nice system idle iowait irq softirq steal guest guest_nice
		b.WriteString("cpu" + strconv.Itoa(i) + " " + strconv.Itoa(c[0]) + " 0 0 " + strconv.Itoa(c[1]) + " 0 0 0 0 0 0\n")
	}
	b.WriteString("intr 12345 0 0\nctxt 999\n")
	return b.String()
}

func parse(t *testing.T, s string) noise.Stat {
	t.Helper()
	st, err := noise.ParseStat(strings.NewReader(s))
	require.NoError(t, err)
	return st
}

func TestParseStatColumns(t *testing.T) {
	st := parse(t, "cpu  1 2 3 4 5 6 7 8 9 10\ncpu0 1 2 3 4 5 6 7 8 9 10\ncpu1 10 0 0 90\n")
	// busy = user+nice+system+irq+softirq+steal; guest is inside user.
	assert.Equal(t, noise.Ticks{Busy: 1 + 2 + 3 + 6 + 7 + 8, Total: 27 + 4 + 5}, st[0])
	assert.Equal(t, noise.Ticks{Busy: 10, Total: 100}, st[1], "old kernels without steal")
	assert.Len(t, st, 2, "the aggregate line is not a CPU")
}

func TestParseStatErrors(t *testing.T) {
	for _, bad := range []string{"", "intr 1 2\n", "cpu0 1 2\n", "cpuX 1 2 3 4\n", "cpu0 1 2 x 4\n"} {
		_, err := noise.ParseStat(strings.NewReader(bad))
		assert.Error(t, err, "%q", bad)
	}
}

func TestOutside(t *testing.T) {
	window := time.Second
	before := parse(t, stat([2]int{1000, 5000}, [2]int{1000, 5000}))
	tests := []struct {
		name      string
		after     string
		cpus      []int
		own       time.Duration
		wantCores float64
		noisy     bool
	}{
		{"quiet: all busy time is ours", stat([2]int{1100, 5000}, [2]int{1050, 5050}), []int{0, 1}, 1500 * time.Millisecond, 0, false},
		{"a neighbour takes half a CPU", stat([2]int{1100, 5000}, [2]int{1050, 5050}), []int{0, 1}, time.Second, 0.5, true},
		{"tick rounding never goes negative", stat([2]int{1010, 5090}, [2]int{1000, 5100}), []int{0, 1}, 120 * time.Millisecond, 0, false},
		{"busy CPUs outside our affinity do not count", stat([2]int{1000, 5100}, [2]int{1100, 5000}), []int{0}, 0, 0, false},
		{"a little noise stays under the threshold", stat([2]int{1005, 5095}, [2]int{1000, 5100}), []int{0, 1}, 0, 0.05, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := noise.Outside(before, parse(t, tt.after), tt.cpus, tt.own, window)
			require.True(t, l.Known)
			assert.InDelta(t, tt.wantCores, l.Cores(), 1e-9)
			assert.Equal(t, tt.noisy, l.Noisy(0.1))
		})
	}
}

// TestShortWindowIsNotNoisy: over 50ms a single tick on one CPU reads as
// 10% of two CPUs, which says nothing.
func TestShortWindowIsNotNoisy(t *testing.T) {
	before := parse(t, stat([2]int{0, 0}, [2]int{0, 0}))
	after := parse(t, stat([2]int{1, 4}, [2]int{1, 4})) // two ticks elsewhere
	l := noise.Outside(before, after, []int{0, 1}, 0, 50*time.Millisecond)
	assert.InDelta(t, 0.2, l.Fraction(), 1e-9)
	assert.InDelta(t, 0.2, l.Uncertainty(), 1e-9)
	assert.False(t, l.Noisy(0.1), "within a tick of nothing")
	assert.False(t, l.Resolved(0.1))

	after = parse(t, stat([2]int{4, 1}, [2]int{4, 1})) // eight ticks elsewhere
	l = noise.Outside(before, after, []int{0, 1}, 0, 50*time.Millisecond)
	assert.True(t, l.Noisy(0.1), "80%% of the CPUs, give or take 20%%")
}

func TestOutsideMissingCPU(t *testing.T) {
	before := parse(t, stat([2]int{0, 0}, [2]int{0, 0}))
	after := parse(t, "cpu0 100 0 0 0\n") // cpu1 went offline
	l := noise.Outside(before, after, []int{0, 1}, 0, time.Second)
	assert.Equal(t, 1, l.CPUs)
	assert.InDelta(t, 1.0, l.Fraction(), 1e-9)
}

func TestUnknownLoad(t *testing.T) {
	var l noise.Load
	assert.False(t, l.Noisy(0), "unknown is not noisy")
	assert.Zero(t, l.Cores())
	known := noise.Load{Known: true, Window: time.Second, CPUs: 2, Outside: time.Second}
	assert.Equal(t, known, l.Add(known))
	assert.Equal(t, known, known.Add(l))
	sum := known.Add(noise.Load{Known: true, Window: time.Second, CPUs: 2})
	assert.InDelta(t, 0.5, sum.Cores(), 1e-9, "load over two windows is their weighted mean")
}

func TestProbeReadsThisMachine(t *testing.T) {
	p := noise.NewProbe()
	r := p.Read()
	time.Sleep(30 * time.Millisecond)
	l := p.Since(r)
	if !l.Known {
		t.Skip("no /proc/stat here")
	}
	assert.Positive(t, l.CPUs)
	assert.GreaterOrEqual(t, l.Window, 30*time.Millisecond)
}
