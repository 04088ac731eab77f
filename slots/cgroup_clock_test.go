package slots_test

import (
	"testing"
	"testing/fstest"
	"time"

	"github.com/weftrt/weft/slots"
)

// The cgroup sampler measures
// the CPU time available by the clock. When the wall clock is stepped back
// (NTP, a resumed VM) while the cgroup kept using CPU, a CPU of 0
// with no error would be a good-looking "idle" reading, telling the
// controller there is room for more slots. The reading must be refused
// (an error, so the supplier skips it) instead.
func TestCgroupClockStepIsNotAnIdleReading(t *testing.T) {
	fsys := fstest.MapFS{
		"proc/self/cgroup":          {Data: []byte("0::/\n")},
		"sys/fs/cgroup/cpu.stat":    {Data: []byte("usage_usec 0\n")},
		"sys/fs/cgroup/cpu.max":     {Data: []byte("200000 100000\n")},
		"sys/fs/cgroup/memory.max":  {Data: []byte("1073741824\n")},
		"sys/fs/cgroup/memory.stat": {Data: []byte("anon 1024\n")},
		"proc/meminfo":              {Data: []byte(meminfo)},
	}
	c := &clock{t: time.Unix(1000, 0)}
	s, err := slots.NewFSSampler(fsys, c.now, 4)
	if err != nil {
		t.Fatal(err)
	}
	c.t = c.t.Add(-time.Second) // the wall clock is stepped back
	fsys["sys/fs/cgroup/cpu.stat"].Data = []byte("usage_usec 1900000\n")
	u, err := s.Sample()
	if err == nil {
		t.Fatalf("a reading across a clock step back was taken as good: %+v (the cgroup used 1.9 CPU-seconds)", u)
	}
	// The next reading, a second on, is good again.
	c.t = c.t.Add(time.Second)
	fsys["sys/fs/cgroup/cpu.stat"].Data = []byte("usage_usec 2900000\n")
	u, err = s.Sample()
	if err != nil {
		t.Fatal(err)
	}
	if u.CPU < 0.49 || u.CPU > 0.51 {
		t.Fatalf("CPU = %v after the step, want 0.5 (1 of 2 CPU-seconds)", u.CPU)
	}
}
