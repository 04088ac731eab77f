package intake

import "sync"

// keyLines serializes the tasks of one key within a worker. A source
// (such as a JetStream consumer) may deliver several tasks with the same
// key at once; the first runs and the others wait in its line, in the
// order they were delivered, each still holding the slot it was polled
// with. So a key's backlog in the worker is bounded by the slots, and it
// is counted honestly: its tasks are reserved, not yet used.
//
// When a task of a line ends, the same goroutine goes on with the next
// one (see Worker.run): the key's tasks run back to back, and no go
// statement or wake-up stands between them.
// Tasks of other keys, and tasks without a key, run in parallel as ever.
//
// A task handed back unrun (a pause, a stop, a fault) goes back through
// its key's line, and the tasks behind it go back after it, one by one,
// so the source gets them again in order. Once the line is empty, the
// key's fence holds back what a poll that began before that brings: such
// a poll may have been answered while the task was still out, with a
// later task of the key that must not run before it. See enter.
type keyLines struct {
	mu sync.Mutex
	// lines maps a key to its tasks: the running one (or the one being
	// handed back) first, then those waiting. A key with no task in the
	// worker has no entry.
	lines map[string][]*delivery
	// fences maps a key whose line last ended with a hand-back to the
	// clock's reading then: a task of the key from a poll numbered no
	// higher goes back too. Kept only while such a poll may be open.
	fences map[string]uint64
	// pruneAt is the size of fences at which next sweeps it.
	pruneAt int
	clock   *pollClock
}

// minPrune is the least size of fences worth a sweep.
const minPrune = 64

func (k *keyLines) init(c *pollClock) {
	k.lines = make(map[string][]*delivery)
	k.fences = make(map[string]uint64)
	k.pruneAt = minPrune
	k.clock = c
}

// enter puts r, a task with key, at the end of the key's line and
// reports whether it is first: then it may run now, unless it must go
// back (r.back), which enter sets if the key's fence stops r's poll. A
// task that is not first runs, or goes back, when those before it are
// done (see next).
func (k *keyLines) enter(key string, r *delivery) (first bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if f, ok := k.fences[key]; ok && r.poll <= f {
		r.back = true // read by whoever takes r from the line: under mu
	}
	line := k.lines[key]
	k.lines[key] = append(line, r)
	return len(line) == 0
}

// next ends the turn of the first task of key and returns the task to
// run (or hand back) after it, or nil if the line is empty. fence says
// the first task went back unrun, and a later task of its key may have
// been given out while it was out: if the line ends with it, the key is
// fenced (see enter) at the clock's reading now, taken after the source
// got that task back. Otherwise a fence the key has stands as it is.
func (k *keyLines) next(key string, fence bool) *delivery {
	k.mu.Lock()
	defer k.mu.Unlock()
	line := k.lines[key]
	if len(line) > 1 {
		line[0] = nil // the GC may take the ended task
		k.lines[key] = line[1:]
		return line[1]
	}
	delete(k.lines, key)
	if fence {
		k.fences[key] = k.clock.now()
		k.prune()
	}
	return nil
}

// prune drops the fences that no open poll is old enough to meet, once
// there are pruneAt of them: hand-backs are rare, and a sweep at each
// doubling keeps a mass hand-back (a stop) linear.
func (k *keyLines) prune() {
	if len(k.fences) < k.pruneAt {
		return
	}
	oldest := k.clock.oldestOpen()
	for key, f := range k.fences {
		if f < oldest {
			delete(k.fences, key)
		}
	}
	k.pruneAt = max(minPrune, 2*len(k.fences))
}

// taskKey returns t's key, or "" if it has none.
func taskKey(t Task) string {
	if kt, ok := t.(Keyed); ok {
		return kt.Key()
	}
	return ""
}
