package slots_test

import (
	"math"
	"runtime"
	"testing"
	"testing/fstest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/weftrt/weft/slots"
)

// clock is a settable time source.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

const meminfo = "MemTotal:       16000000 kB\nMemFree:         1000000 kB\nMemAvailable:   12000000 kB\nCached:          9000000 kB\n"

// TestCgroupSampler reads a cgroup v2 directory: CPU from cpu.stat's
// usage_usec against cpu.max's quota, memory from memory.stat's anon (not
// the page cache) against memory.max.
func TestCgroupSampler(t *testing.T) {
	fsys := fstest.MapFS{
		"proc/self/cgroup":                        {Data: []byte("0::/app.slice/job\n")},
		"sys/fs/cgroup/app.slice/job/cpu.stat":    {Data: []byte("usage_usec 1000000\nuser_usec 800000\n")},
		"sys/fs/cgroup/app.slice/job/cpu.max":     {Data: []byte("200000 100000\n")},
		"sys/fs/cgroup/app.slice/job/memory.max":  {Data: []byte("1073741824\n")},
		"sys/fs/cgroup/app.slice/job/memory.stat": {Data: []byte("anon 268435456\nfile 805306368\n")},
		"proc/meminfo":                            {Data: []byte(meminfo)},
	}
	c := &clock{t: time.Unix(1000, 0)}
	s, err := slots.NewFSSampler(fsys, c.now, 8)
	require.NoError(t, err)

	// One second later the cgroup used 1.5 of its 2 CPUs' seconds.
	c.t = c.t.Add(time.Second)
	fsys["sys/fs/cgroup/app.slice/job/cpu.stat"].Data = []byte("usage_usec 2500000\n")
	u, err := s.Sample()
	require.NoError(t, err)
	require.InDelta(t, 0.75, u.CPU, 1e-9)
	require.InDelta(t, 0.25, u.Memory, 1e-9, "memory must count anon only, not file cache")
}

// TestCgroupWithoutLimits: "max" limits fall back to the host's CPUs and
// MemTotal; a namespaced cgroup ("0::/") is the mount point itself.
func TestCgroupWithoutLimits(t *testing.T) {
	fsys := fstest.MapFS{
		"proc/self/cgroup":          {Data: []byte("0::/\n")},
		"sys/fs/cgroup/cpu.stat":    {Data: []byte("usage_usec 0\n")},
		"sys/fs/cgroup/cpu.max":     {Data: []byte("max 100000\n")},
		"sys/fs/cgroup/memory.max":  {Data: []byte("max\n")},
		"sys/fs/cgroup/memory.stat": {Data: []byte("anon 4096000000\n")},
		"proc/meminfo":              {Data: []byte(meminfo)},
	}
	c := &clock{t: time.Unix(1000, 0)}
	s, err := slots.NewFSSampler(fsys, c.now, 4)
	require.NoError(t, err)
	c.t = c.t.Add(2 * time.Second)
	fsys["sys/fs/cgroup/cpu.stat"].Data = []byte("usage_usec 2000000\n")
	u, err := s.Sample()
	require.NoError(t, err)
	require.InDelta(t, 0.25, u.CPU, 1e-9) // 2 CPU-seconds of 4 CPUs * 2 s
	require.InDelta(t, 4096000000.0/16384000000, u.Memory, 1e-9)
}

// TestHostSampler reads /proc/stat and /proc/meminfo when there is no
// cgroup v2 directory with CPU figures (cgroup v1 here).
func TestHostSampler(t *testing.T) {
	fsys := fstest.MapFS{
		"proc/self/cgroup": {Data: []byte("4:memory:/x\n1:cpu:/\n")},
		"proc/stat":        {Data: []byte("cpu  100 0 100 700 100 0 0 0 0 0\ncpu0 1 2 3\n")},
		"proc/meminfo":     {Data: []byte(meminfo)},
	}
	c := &clock{t: time.Unix(1000, 0)}
	s, err := slots.NewFSSampler(fsys, c.now, 2)
	require.NoError(t, err)
	fsys["proc/stat"].Data = []byte("cpu  250 0 150 900 200 0 0 0 0 0\n")
	u, err := s.Sample()
	require.NoError(t, err)
	require.InDelta(t, 200.0/500, u.CPU, 1e-9) // busy 200 of 500 jiffies; iowait is idle
	require.InDelta(t, 0.25, u.Memory, 1e-9)   // MemAvailable counts reclaimable cache as free
}

func TestSamplerFailures(t *testing.T) {
	_, err := slots.NewFSSampler(fstest.MapFS{}, time.Now, 1)
	require.Error(t, err)
	_, err = slots.NewFSSampler(fstest.MapFS{
		"proc/stat":    {Data: []byte("intr 1 2\n")},
		"proc/meminfo": {Data: []byte(meminfo)},
	}, time.Now, 1)
	require.Error(t, err)
}

// TestSystemSampler reads this machine, whatever it offers.
func TestSystemSampler(t *testing.T) {
	if runtime.GOOS != "linux" {
		_, err := slots.NewSystemSampler()
		require.Error(t, err)
		return
	}
	s, err := slots.NewSystemSampler()
	require.NoError(t, err)
	// A window of a few scheduler periods: within one 100ms period a
	// cgroup may burst past its CPU quota.
	time.Sleep(300 * time.Millisecond)
	u, err := s.Sample()
	require.NoError(t, err)
	for _, v := range []float64{u.CPU, u.Memory} {
		require.False(t, math.IsNaN(v))
		require.GreaterOrEqual(t, v, 0.0)
		require.LessOrEqual(t, v, 1.5)
	}
	t.Logf("usage now: %+v", u)
}
