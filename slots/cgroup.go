package slots

import (
	"bufio"
	"bytes"
	"io/fs"
	"path"
	"strconv"
	"strings"
)

// cgroupRoot is where cgroup v2 is mounted, relative to the file system root.
const cgroupRoot = "sys/fs/cgroup"

// findCgroup returns the process's cgroup v2 directory, relative to fsys,
// or "" if there is none with CPU figures. /proc/self/cgroup names the
// cgroup ("0::/path"); inside a cgroup namespace the path is "/" and the
// mount point itself is the process's cgroup.
func findCgroup(fsys fs.FS) string {
	b, err := fs.ReadFile(fsys, "proc/self/cgroup")
	if err != nil {
		return ""
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		rel, ok := strings.CutPrefix(sc.Text(), "0::")
		if !ok {
			continue
		}
		for _, dir := range []string{path.Join(cgroupRoot, rel), cgroupRoot} {
			if _, err := fs.Stat(fsys, path.Join(dir, "cpu.stat")); err == nil {
				return dir
			}
		}
	}
	return ""
}

// cgroupCPUs returns the CPUs that cpu.max allows ("quota period", or
// "max period" for no quota, in which case host is returned).
func cgroupCPUs(fsys fs.FS, dir string, host float64) float64 {
	b, err := fs.ReadFile(fsys, path.Join(dir, "cpu.max"))
	if err != nil {
		return host
	}
	f := strings.Fields(string(b))
	if len(f) != 2 || f[0] == "max" {
		return host
	}
	quota, err1 := strconv.ParseFloat(f[0], 64)
	period, err2 := strconv.ParseFloat(f[1], 64)
	if err1 != nil || err2 != nil || quota <= 0 || period <= 0 {
		return host
	}
	return min(quota/period, host)
}

// cgroupCPU reads cpu.stat's usage_usec against the CPU time the cgroup
// could have had since the sampler's clock began.
func (s *fsSampler) cgroupCPU() (cpuReading, error) {
	usec, err := keyedValue(s.fsys, path.Join(s.cg, "cpu.stat"), "usage_usec")
	if err != nil {
		return cpuReading{}, err
	}
	// Measured from start with Sub, which uses the monotonic clock when
	// now is time.Now: a step of the wall clock is not CPU time.
	elapsed := s.now().Sub(s.start).Seconds()
	return cpuReading{busy: float64(usec) / 1e6, total: elapsed * s.cpus}, nil
}

// cgroupMemory returns memory.stat's anon over memory.max, or over the
// host's MemTotal when memory.max is "max" or missing.
func cgroupMemory(fsys fs.FS, dir string) (float64, error) {
	anon, err := keyedValue(fsys, path.Join(dir, "memory.stat"), "anon")
	if err != nil {
		return 0, err
	}
	limit, ok := cgroupMemoryMax(fsys, dir)
	if !ok {
		if limit, err = meminfo(fsys, "MemTotal"); err != nil {
			return 0, err
		}
	}
	return float64(anon) / float64(limit), nil
}

func cgroupMemoryMax(fsys fs.FS, dir string) (uint64, bool) {
	b, err := fs.ReadFile(fsys, path.Join(dir, "memory.max"))
	if err != nil {
		return 0, false
	}
	v, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64)
	return v, err == nil && v > 0
}
