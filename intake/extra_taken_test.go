package intake_test

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/weftrt/weft/intake"
	"github.com/weftrt/weft/slots"
)

// takenLate is a trapTask that records whether it had been settled when
// it was told Taken.
type takenLate struct {
	*trapTask
	settledFirst atomic.Bool
}

func (k *takenLate) Taken() {
	k.settledFirst.Store(k.settled.Load())
	k.trapTask.Taken()
}

// A source's tasks beyond what a poll asked for are handed back, and,
// as OrderKeeper promises for every task a poll returned, told Taken,
// once, after that. They never were: a source that holds back the keys
// (or the partition) of a poll until all its tasks are Taken, as the
// JetStream source does, waited for them for ever.
func TestExtraTasksAreTaken(t *testing.T) {
	var c trapCounts
	tasks := make([]*takenLate, 3)
	list := make([]intake.Task, len(tasks))
	for i := range tasks {
		tasks[i] = &takenLate{trapTask: &trapTask{id: string(rune('a' + i)), deliveries: 1, c: &c}}
		list[i] = tasks[i]
	}
	w := newWorker(t, intake.Config{
		Source:     &seqSource{answers: []answer{{tasks: list}}},
		Supplier:   slots.NewFixed(1), // MaxBatch 1: b and c are extra
		MaxPollers: 1, Handler: nop,
	})
	eventually(t, 10*time.Second, func() bool { return c.acked.Load() == 1 }, "the asked-for task acknowledged")
	shutdownInTime(t, w) // the poller has retired: it is done with its poll
	for _, k := range tasks {
		require.EqualValues(t, 1, k.taken.Load(), "Taken calls of task %s", k.id)
	}
	for _, k := range tasks[1:] {
		require.True(t, k.settledFirst.Load(), "extra task %s told Taken before it was handed back", k.id)
	}
	requireFigures(t, w, figures{Received: 3, Started: 1, Acked: 1, HandedBack: 2})
	require.Equal(t, settlements{Acked: 1, HandedBack: 2}, c.get())
}
