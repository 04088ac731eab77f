package noise

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Ticks are one CPU's counters from /proc/stat, in clock ticks (USER_HZ).
type Ticks struct {
	Busy  uint64 // user, nice, system, irq, softirq and steal
	Total uint64 // Busy plus idle and iowait
}

// Stat is a parsed /proc/stat: the counters of each CPU line ("cpu3"), by
// CPU number. The aggregate "cpu" line is left out: it covers CPUs this
// process may not run on.
type Stat map[int]Ticks

// ParseStat reads the CPU lines of a /proc/stat file.
//
// Steal counts as busy: on a virtual machine it is time the hypervisor
// gave this CPU to another guest, which slows a measurement as surely as
// a neighbouring process does. Guest time is already inside user time, so
// it is not added again.
func ParseStat(r io.Reader) (Stat, error) {
	st := Stat{}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 || !strings.HasPrefix(fields[0], "cpu") || fields[0] == "cpu" {
			continue
		}
		cpu, err := strconv.Atoi(fields[0][len("cpu"):])
		if err != nil {
			return nil, fmt.Errorf("noise: /proc/stat: bad CPU name %q", fields[0])
		}
		t, err := parseTicks(fields[1:])
		if err != nil {
			return nil, fmt.Errorf("noise: /proc/stat: %s: %w", fields[0], err)
		}
		st[cpu] = t
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("noise: /proc/stat: %w", err)
	}
	if len(st) == 0 {
		return nil, fmt.Errorf("noise: /proc/stat: no CPU lines")
	}
	return st, nil
}

// The columns of a CPU line, in order (proc(5)); kernels before 2.6.11
// lack steal and later ones, which then count as zero.
const (
	colUser = iota
	colNice
	colSystem
	colIdle
	colIOWait
	colIRQ
	colSoftIRQ
	colSteal
	minColumns = colIdle + 1
)

func parseTicks(cols []string) (Ticks, error) {
	if len(cols) < minColumns {
		return Ticks{}, fmt.Errorf("%d columns, want at least %d", len(cols), minColumns)
	}
	var v [colSteal + 1]uint64
	for i := range min(len(cols), len(v)) {
		n, err := strconv.ParseUint(cols[i], 10, 64)
		if err != nil {
			return Ticks{}, err
		}
		v[i] = n
	}
	busy := v[colUser] + v[colNice] + v[colSystem] + v[colIRQ] + v[colSoftIRQ] + v[colSteal]
	return Ticks{Busy: busy, Total: busy + v[colIdle] + v[colIOWait]}, nil
}
