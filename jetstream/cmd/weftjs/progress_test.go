package main

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/weftrt/weft/intake"
)

// The progress line's backlog: a source that has not told its backlog yet
// printed "backlog -1 (per free slot unknown)".
func TestBacklogRendering(t *testing.T) {
	for _, c := range []struct {
		s    intake.Stats
		want string
	}{
		{intake.Stats{Backlog: -1, BacklogPerFreeSlot: -1}, "backlog unknown"},
		{intake.Stats{Backlog: 30, BacklogPerFreeSlot: 7.5}, "backlog 30 (7.5 per free slot)"},
		{intake.Stats{Backlog: 30, BacklogPerFreeSlot: math.Inf(1)}, "backlog 30 (no free slot)"},
		{intake.Stats{Backlog: 0, BacklogPerFreeSlot: 0}, "backlog 0 (0.0 per free slot)"},
	} {
		assert.Equal(t, c.want, backlog(c.s))
	}
}
