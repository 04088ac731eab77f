package weftjs

import "sync/atomic"

// Stats are a Source's own counts, beside the worker's (intake.Stats).
type Stats struct {
	// ThrottledPolls counts the polls the server answered "come back
	// later" (requests pending, MaxAckPending reached), each followed by
	// a pause that grows while they last.
	ThrottledPolls uint64
	// HandedBack counts the tasks returned unrun by republishing them
	// (Task.HandBack), so that the return does not count a delivery.
	HandedBack uint64
	// DeadLettered counts the terminated tasks stored in the dead-letter
	// stream, each once the server confirmed its +TERM (a task whose
	// +TERM failed is dead-lettered again when it comes back, and counts
	// then).
	DeadLettered uint64
	// SetAside counts the messages that reached a poll and could not be
	// tasks (no JetStream metadata): reported, never run.
	SetAside uint64
}

type sourceCounters struct {
	throttled, handedBack, deadLettered, setAside atomic.Uint64
}

// Stats returns the source's counts now.
func (s *Source) Stats() Stats {
	return Stats{
		ThrottledPolls: s.stats.throttled.Load(),
		HandedBack:     s.stats.handedBack.Load(),
		DeadLettered:   s.stats.deadLettered.Load(),
		SetAside:       s.stats.setAside.Load(),
	}
}
