package intake

import "testing"

func TestScalerRule(t *testing.T) {
	var s scaler
	s.init(1, 4, 8)
	s.enter() // the first poller, as New starts it
	started := 0
	feed := func(polls, got, asked int) {
		for range polls {
			if s.observe(got, asked) {
				started++
			}
		}
	}
	feed(40, 8, 8) // full polls: grow to the ceiling, one poller at a time
	if _, target := s.counts(); target != 4 || started != 3 {
		t.Fatalf("after full polls: target %d, started %d; want 4, 3", target, started)
	}
	feed(40, 3, 8) // partial polls: enough pollers, hold
	if _, target := s.counts(); target != 4 {
		t.Fatalf("after partial polls: target %d, want 4", target)
	}
	feed(40, 1, 1) // full but small polls: enough pollers, hold
	if _, target := s.counts(); target != 4 {
		t.Fatalf("after partial polls: target %d, want 4", target)
	}
	feed(40, 0, 8) // empty polls: shrink to the floor
	active, target := s.counts()
	if target != 1 {
		t.Fatalf("after empty polls: target %d, want 1", target)
	}
	// Pollers retire one by one at their next check, down to the target.
	retired := 0
	for s.retire() {
		retired++
	}
	if retired != 3 || active-retired != 1 {
		t.Fatalf("retired %d of %d pollers, want 3", retired, active)
	}
	// One non-empty poll among empties does not make it grow.
	feed(1, 8, 8)
	if _, target := s.counts(); target != 1 {
		t.Fatalf("one full poll after empties: target %d, want 1", target)
	}
	s.stop()
	if !s.retire() {
		t.Fatal("a poller of a stopped scaler must retire")
	}
	select {
	case <-s.done:
	default:
		t.Fatal("done not closed once the last poller retired")
	}
}
