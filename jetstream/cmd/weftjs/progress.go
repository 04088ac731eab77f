package main

import (
	"fmt"
	"math"
	"os"
	"time"

	"github.com/weftrt/weft/intake"
)

// progress rewrites one status line on stderr.
type progress struct {
	target    uint64
	lastAcked uint64
	lastTime  time.Time
	rate      float64
}

func newProgress(target uint64) *progress {
	return &progress{target: target, lastTime: time.Now()}
}

func (p *progress) show(s intake.Stats) {
	now := time.Now()
	if dt := now.Sub(p.lastTime).Seconds(); dt >= 0.2 {
		p.rate = float64(s.Acked-p.lastAcked) / dt
		p.lastAcked, p.lastTime = s.Acked, now
	}
	done := fmt.Sprint(s.Acked)
	if p.target > 0 {
		done = fmt.Sprintf("%d/%d", s.Acked, p.target)
	}
	state := "running"
	if s.Paused {
		state = "PAUSED "
	}
	fmt.Fprintf(os.Stderr, "\r%s  acked %s  %6.0f/s  slots %d/%d in use  pollers %d  %s  retries %d  poison %d   ",
		state, done, p.rate, s.Slots.InUse, s.Slots.Max, s.Pollers, backlog(s), s.Nacked, s.Terminated)
}

// backlog renders the backlog figures: -1 says the source gave none yet
// (no poll has read it), which the line printed as "backlog -1".
func backlog(s intake.Stats) string {
	if s.Backlog < 0 {
		return "backlog unknown"
	}
	return fmt.Sprintf("backlog %d (%s)", s.Backlog, perFreeSlot(s.BacklogPerFreeSlot))
}

func printStats(s intake.Stats) {
	fmt.Fprintf(os.Stderr, "received %d (redelivered %d), started %d, acked %d, nacked %d, terminated %d, handed back %d, failed %d (panics %d), settle errors %d\n",
		s.Received, s.Redelivered, s.Started, s.Acked, s.Nacked, s.Terminated, s.HandedBack, s.Failed, s.Panics, s.SettleErrors)
	fmt.Fprintf(os.Stderr, "polls %d (empty %d, failed %d), poll time %v, pollers %d, heartbeats %d, slots in use %d, reserved %d\n",
		s.Polls, s.EmptyPolls, s.PollErrors, s.PollTime, s.Pollers, s.Heartbeats, s.Slots.InUse, s.Slots.Reserved)
}

// perFreeSlot renders intake.Stats.BacklogPerFreeSlot.
func perFreeSlot(x float64) string {
	switch {
	case x < 0:
		return "per free slot unknown"
	case math.IsInf(x, 1):
		return "no free slot"
	}
	return fmt.Sprintf("%.1f per free slot", x)
}
