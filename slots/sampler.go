package slots

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"strconv"
	"time"
)

// Usage is a reading of how much of its allowance the process uses: CPU
// over the time since the previous reading, memory now. Each is a
// fraction, 0 for none and 1 for all of it (CPU can read a little above 1
// when a cgroup's quota is overrun within a period). The zero Usage is an
// idle process.
type Usage struct {
	CPU    float64
	Memory float64
}

// Sampler reads resource usage for a ResourceBased supplier. Sample is
// called by one reservation at a time, at most once per sample interval,
// without the supplier's lock held: a slow reading holds up only the
// reservation that takes it, while releases and other reservations go on
// under the budget as it stands. It should still return in well under a
// millisecond. Implement it to feed the supplier other figures (or, in
// tests, a simulated workload). A reading that returns an error, panics,
// calls runtime.Goexit, or holds figures that are not usage (NaN,
// infinite, negative) is skipped and counted (ResourceState.Skipped): the
// supplier goes on deciding on the last good readings, or, where they
// left a budget of 0 (or there are none), fails the reservations once
// three readings in a row are skipped (see ResourceBased.ReserveSlot).
type Sampler interface {
	Sample() (Usage, error)
}

// fsSampler reads usage from the files of a Linux system, through fsys
// (the root of the file system) so tests can give it files of their own.
// It prefers the process's cgroup v2 figures: cpu.max and cpu.stat for CPU,
// memory.max and memory.stat's anon for memory. Anonymous memory, not
// memory.current, because memory.current counts the page cache, which
// grows with any file I/O and is given back under pressure: a supplier
// that read it would stop admitting work on a machine that merely reads
// files. Without a cgroup v2 directory it reads the host's /proc/stat and
// /proc/meminfo.
type fsSampler struct {
	fsys  fs.FS
	now   func() time.Time
	start time.Time // now() when made; cgroup CPU time is measured from it
	cg    string    // the cgroup v2 directory, relative to fsys; "" for host figures
	cpus  float64

	last cpuReading
}

// cpuReading is a cumulative CPU counter: busy and total in the same unit
// (seconds of CPU and CPU-seconds available for a cgroup, jiffies for the
// host).
type cpuReading struct {
	busy, total float64
}

// errNoFigures is returned when neither cgroup nor host figures can be read.
var errNoFigures = errors.New("weft/slots: no cgroup v2 or /proc figures to sample")

// newFSSampler finds where to read figures and takes a first CPU reading,
// so that the first Sample covers the time since.
func newFSSampler(fsys fs.FS, now func() time.Time, cpus int) (*fsSampler, error) {
	s := &fsSampler{fsys: fsys, now: now, start: now(), cg: findCgroup(fsys), cpus: float64(cpus)}
	if s.cg != "" {
		s.cpus = cgroupCPUs(fsys, s.cg, s.cpus)
	}
	r, err := s.readCPU()
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errNoFigures, err)
	}
	if _, err := s.readMemory(); err != nil {
		return nil, fmt.Errorf("%w: %v", errNoFigures, err)
	}
	s.last = r
	return s, nil
}

// Sample returns CPU use since the previous call and memory use now.
func (s *fsSampler) Sample() (Usage, error) {
	r, err := s.readCPU()
	if err != nil {
		return Usage{}, err
	}
	mem, err := s.readMemory()
	if err != nil {
		return Usage{}, err
	}
	dt := r.total - s.last.total
	busy := r.busy - s.last.busy
	s.last = r
	if !(dt > 0) {
		// No time passed by the clock (or it was stepped back): the
		// CPU used cannot be put in proportion, and 0 would read as idle.
		return Usage{}, fmt.Errorf("weft/slots: CPU reading over %v of available time, %v used: clock did not advance", dt, busy)
	}
	return Usage{CPU: busy / dt, Memory: mem}, nil
}

func (s *fsSampler) readCPU() (cpuReading, error) {
	if s.cg != "" {
		return s.cgroupCPU()
	}
	return hostCPU(s.fsys)
}

func (s *fsSampler) readMemory() (float64, error) {
	if s.cg != "" {
		return cgroupMemory(s.fsys, s.cg)
	}
	return hostMemory(s.fsys)
}

// hostCPU reads the aggregate "cpu" line of /proc/stat: user nice system
// idle iowait irq softirq steal (guest time is already in user).
func hostCPU(fsys fs.FS) (cpuReading, error) {
	b, err := fs.ReadFile(fsys, "proc/stat")
	if err != nil {
		return cpuReading{}, err
	}
	line, _, _ := bytes.Cut(b, []byte("\n"))
	f := bytes.Fields(line)
	if len(f) < 5 || string(f[0]) != "cpu" {
		return cpuReading{}, errors.New("weft/slots: /proc/stat: no cpu line")
	}
	var r cpuReading
	for i, field := range f[1:min(len(f), 9)] {
		v, err := strconv.ParseUint(string(field), 10, 64)
		if err != nil {
			return cpuReading{}, fmt.Errorf("weft/slots: /proc/stat: %w", err)
		}
		r.total += float64(v)
		if i != 3 && i != 4 { // idle and iowait are not busy
			r.busy += float64(v)
		}
	}
	return r, nil
}

// hostMemory returns (MemTotal - MemAvailable) / MemTotal: MemAvailable
// already counts the page cache the kernel can reclaim as free.
func hostMemory(fsys fs.FS) (float64, error) {
	total, err := meminfo(fsys, "MemTotal")
	if err != nil {
		return 0, err
	}
	avail, err := meminfo(fsys, "MemAvailable")
	if err != nil {
		return 0, err
	}
	return float64(total-min(avail, total)) / float64(total), nil
}

// meminfo returns a /proc/meminfo figure in bytes.
func meminfo(fsys fs.FS, key string) (uint64, error) {
	kb, err := keyedValue(fsys, "proc/meminfo", key+":")
	if err != nil {
		return 0, err
	}
	if key == "MemTotal" && kb == 0 {
		return 0, errors.New("weft/slots: /proc/meminfo: MemTotal is 0")
	}
	return kb * 1024, nil
}

// keyedValue returns the number after key on the line of file that starts
// with key (the format of memory.stat, cpu.stat and /proc/meminfo).
func keyedValue(fsys fs.FS, file, key string) (uint64, error) {
	f, err := fsys.Open(file)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := bytes.Fields(sc.Bytes())
		if len(fields) >= 2 && string(fields[0]) == key {
			return strconv.ParseUint(string(fields[1]), 10, 64)
		}
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	return 0, fmt.Errorf("weft/slots: %s: no %q", file, key)
}
