package intake

import (
	"container/heap"
	"time"
)

// timerHeap holds the MemQueue entries that wait for a time, leased ones
// for their lease's end and delayed ones for their delay's, soonest
// deadline first. An entry is in it at most once, at index e.timer, and
// only while it waits: a settlement, an extension or a new delivery moves
// or removes it at once, so the heap never keeps a settled task (and its
// payload) alive.
type timerHeap []*memEntry

func (h timerHeap) Len() int           { return len(h) }
func (h timerHeap) Less(i, j int) bool { return h[i].deadline.Before(h[j].deadline) }
func (h timerHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].timer, h[j].timer = i, j
}
func (h *timerHeap) Push(x any) {
	e := x.(*memEntry)
	e.timer = len(*h)
	*h = append(*h, e)
}
func (h *timerHeap) Pop() any {
	old := *h
	e := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	e.timer = noTimer
	return e
}

// noTimer is memEntry.timer for an entry that is not in the heap.
const noTimer = -1

// set puts e in the heap at its deadline, or moves it there if it is in
// already.
func (h *timerHeap) set(e *memEntry) {
	if e.timer == noTimer {
		heap.Push(h, e)
		return
	}
	heap.Fix(h, e.timer)
}

// drop takes e out of the heap, if it is in.
func (h *timerHeap) drop(e *memEntry) {
	if e.timer != noTimer {
		heap.Remove(h, e.timer)
	}
}

// next returns the soonest deadline.
func (h timerHeap) next() (time.Time, bool) {
	if len(h) == 0 {
		return time.Time{}, false
	}
	return h[0].deadline, true
}

// popDue removes and returns the entry with the soonest deadline if that
// deadline is at or before now.
func (h *timerHeap) popDue(now time.Time) (*memEntry, bool) {
	if len(*h) == 0 || (*h)[0].deadline.After(now) {
		return nil, false
	}
	return heap.Pop(h).(*memEntry), true
}
