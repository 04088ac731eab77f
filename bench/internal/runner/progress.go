package runner

import (
	"fmt"
	"io"
	"time"
)

// Progress reports on a writer (stderr) what the runner is doing, how
// long it has run and roughly how long it will still run. On a terminal it
// redraws one status line per case and round; elsewhere (a log, CI) it
// writes one line per round of a bout. The nil *Progress reports nothing.
type Progress struct {
	w       io.Writer
	tty     bool
	start   time.Time
	reps    int
	work    int // slots (one case's turn in one round) in the whole run
	done    int // slots finished
	bouts   int
	bout    int // the current bout, from 1
	attempt int // the current bout's attempt, from 1
}

// NewProgress returns a Progress writing to w; tty selects the redrawn
// status line.
func NewProgress(w io.Writer, tty bool) *Progress {
	return &Progress{w: w, tty: tty}
}

func (p *Progress) begin(bouts [][]Case, o Options) {
	if p == nil {
		return
	}
	p.start, p.reps, p.bouts, p.bout, p.done, p.work = time.Now(), o.Reps, len(bouts), 0, 0, 0
	for _, b := range bouts {
		p.work += len(b) * o.Reps
	}
}

// boutStart reports that an attempt at a bout starts; a retry adds its
// slots to the work left.
func (p *Progress) boutStart(bout []Case, attempt int) {
	if p == nil {
		return
	}
	p.attempt = attempt
	if attempt == 1 {
		p.bout++
		return
	}
	p.work += len(bout) * p.reps
	if !p.tty {
		fmt.Fprintf(p.w, "%s %s was noisy: measuring again\n", p.prefix(), boutName(bout))
	}
}

// run reports that repetition (or round) i of n of c starts; what says
// which.
func (p *Progress) run(c *Case, what string, i, n int) {
	if p == nil || !p.tty {
		return
	}
	fmt.Fprintf(p.w, "\r\033[K%s %s: %s %d of %d%s", p.prefix(), c.Name(), what, i, n, p.clock())
}

// round reports that round r (from 1) of bout is done.
func (p *Progress) round(bout []Case, r int) {
	if p == nil {
		return
	}
	p.done += len(bout)
	if p.tty {
		return
	}
	fmt.Fprintf(p.w, "%s %s: round %d of %d%s\n", p.prefix(), boutName(bout), r, p.reps, p.clock())
}

// boutName names a bout's only case, or its workload and how many
// contenders and worker counts it interleaves.
func boutName(bout []Case) string {
	if len(bout) == 1 {
		return bout[0].Name()
	}
	return fmt.Sprintf("%s/%s (%d cases interleaved)", bout[0].Suite, bout[0].Workload, len(bout))
}

func (p *Progress) end(cases int) {
	if p == nil {
		return
	}
	if p.tty {
		fmt.Fprint(p.w, "\r\033[K")
	}
	fmt.Fprintf(p.w, "weftbench: %d cases in %s\n", cases, roundSecond(time.Since(p.start)))
}

func (p *Progress) prefix() string {
	s := fmt.Sprintf("[%*d/%d]", len(fmt.Sprint(p.bouts)), p.bout, p.bouts)
	if p.attempt > 1 {
		s += fmt.Sprintf(" (attempt %d)", p.attempt)
	}
	return s
}

// clock returns the elapsed time and an estimate of the rest, which
// assumes the remaining slots take as long on average as the finished
// ones: rough, since cases differ, but it only has to tell a user whether
// to wait or fetch a coffee.
func (p *Progress) clock() string {
	elapsed := time.Since(p.start)
	s := fmt.Sprintf("  (%s elapsed", roundSecond(elapsed))
	if p.done > 0 {
		left := elapsed / time.Duration(p.done) * time.Duration(max(p.work-p.done, 0))
		s += fmt.Sprintf(", ~%s left", roundSecond(left))
	}
	return s + ")"
}

func roundSecond(d time.Duration) time.Duration { return d.Round(time.Second) }
