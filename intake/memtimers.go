package intake

import (
	"container/heap"
	"time"
)

// timer is a MemQueue entry's lease end or delay end, as of delivery gen.
// Timers are never removed early: one made stale by a settlement or an
// extension is skipped when it comes due (MemQueue.expire).
type timer struct {
	at  time.Time
	e   *memEntry
	gen uint64
}

// timerHeap is a min-heap of timers by time.
type timerHeap []timer

func (h timerHeap) Len() int           { return len(h) }
func (h timerHeap) Less(i, j int) bool { return h[i].at.Before(h[j].at) }
func (h timerHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *timerHeap) Push(x any)        { *h = append(*h, x.(timer)) }
func (h *timerHeap) Pop() any {
	old := *h
	t := old[len(old)-1]
	old[len(old)-1] = timer{}
	*h = old[:len(old)-1]
	return t
}

func (h *timerHeap) push(t timer) { heap.Push(h, t) }

// next returns the time of the soonest timer.
func (h timerHeap) next() (time.Time, bool) {
	if len(h) == 0 {
		return time.Time{}, false
	}
	return h[0].at, true
}

// popDue removes and returns the soonest timer if it is due at now.
func (h *timerHeap) popDue(now time.Time) (timer, bool) {
	if len(*h) == 0 || (*h)[0].at.After(now) {
		return timer{}, false
	}
	return heap.Pop(h).(timer), true
}
