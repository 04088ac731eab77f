package noise

import (
	"os"
	"runtime"
	"time"

	"github.com/weftrt/weft/internal/work"
)

// Tick is the length of a /proc/stat tick. USER_HZ is 100 on every Linux
// architecture Go supports, and Go cannot ask sysconf without cgo.
const Tick = 10 * time.Millisecond

// Load is how busy this process's CPUs were with other work during a
// window. The zero Load is an unknown one.
type Load struct {
	Known   bool          // false where /proc/stat could not be read
	Window  time.Duration // wall time between the two readings
	CPUs    int           // CPUs this process may run on
	Outside time.Duration // CPU time spent on them by others, never negative
}

// Outside returns the load between two readings of the CPUs in cpus, given
// the CPU time this process used between them (own) and the wall time
// between them (window). A CPU missing from either reading (taken offline)
// is left out.
func Outside(before, after Stat, cpus []int, own, window time.Duration) Load {
	var busy uint64
	n := 0
	for _, c := range cpus {
		b, ok1 := before[c]
		a, ok2 := after[c]
		if !ok1 || !ok2 || a.Busy < b.Busy {
			continue
		}
		busy += a.Busy - b.Busy
		n++
	}
	outside := time.Duration(busy)*Tick - own
	return Load{Known: n > 0 && window > 0, Window: window, CPUs: n, Outside: max(outside, 0)}
}

// Cores returns the outside load in CPUs: 0.5 means half a CPU was busy
// elsewhere, on average, for the whole window.
func (l Load) Cores() float64 {
	if !l.Known {
		return 0
	}
	return l.Outside.Seconds() / l.Window.Seconds()
}

// Fraction returns the outside load as a share of the CPUs, 0 to 1.
func (l Load) Fraction() float64 {
	if !l.Known || l.CPUs == 0 {
		return 0
	}
	return l.Cores() / float64(l.CPUs)
}

// Uncertainty returns how far Fraction may be off for lack of resolution:
// each CPU's count may be a tick off at either end of the window.
func (l Load) Uncertainty() float64 {
	if !l.Known {
		return 1
	}
	return Tick.Seconds() / l.Window.Seconds()
}

// Noisy reports whether more than threshold (a share of the CPUs, such as
// 0.1) was surely busy elsewhere: even less the uncertainty. A load that
// is unknown, or too coarse to tell, is not noisy; Resolved says which.
func (l Load) Noisy(threshold float64) bool {
	return l.Known && l.Fraction()-l.Uncertainty() > threshold
}

// Resolved reports whether the load is known finely enough to tell a
// load of threshold from none.
func (l Load) Resolved(threshold float64) bool {
	return l.Known && l.Uncertainty() < threshold
}

// Add returns the load over two windows taken together.
func (l Load) Add(m Load) Load {
	if !m.Known {
		return l
	}
	if !l.Known {
		return m
	}
	return Load{Known: true, Window: l.Window + m.Window, CPUs: max(l.CPUs, m.CPUs), Outside: l.Outside + m.Outside}
}

// Reading is what a Probe reads at one instant.
type Reading struct {
	stat Stat // nil if /proc/stat could not be read
	own  time.Duration
	at   time.Time
}

// Probe takes readings of the machine. The zero Probe reads nothing and
// returns unknown loads; NewProbe returns a working one where /proc/stat
// exists.
type Probe struct {
	cpus []int // the CPUs this process may run on
}

// NewProbe returns a probe of the CPUs in this process's affinity mask
// (where the system says; else the first runtime.NumCPU CPUs).
func NewProbe() *Probe {
	if cpus := affinity(); len(cpus) > 0 {
		return &Probe{cpus: cpus}
	}
	return &Probe{cpus: firstCPUs(runtime.NumCPU())}
}

func firstCPUs(n int) []int {
	cpus := make([]int, n)
	for i := range cpus {
		cpus[i] = i
	}
	return cpus
}

// Read takes a reading now.
func (p *Probe) Read() Reading {
	r := Reading{own: work.CPUTime(), at: time.Now()}
	if len(p.cpus) == 0 {
		return r
	}
	if f, err := os.Open("/proc/stat"); err == nil {
		r.stat, _ = ParseStat(f) // an unreadable file leaves the load unknown
		f.Close()
	}
	return r
}

// Since returns the load between an earlier reading and now.
func (p *Probe) Since(before Reading) Load {
	after := p.Read()
	if before.stat == nil || after.stat == nil {
		return Load{}
	}
	return Outside(before.stat, after.stat, p.cpus, after.own-before.own, after.at.Sub(before.at))
}
