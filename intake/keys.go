package intake

import "sync"

// keyLines serializes the tasks of one key within a worker. A source
// (such as a JetStream consumer) may deliver several tasks with the same
// key at once; the first runs and the others wait in its line, in the
// order they were delivered, each still holding the slot it was polled
// with. So a key's backlog in the worker is bounded by the slots, and it
// is counted honestly: its tasks are reserved, not yet used.
//
// When a task of a line ends, the same pool worker goes on with the next
// one (see Worker.run): the key's tasks run back to back on one worker,
// where its state is warm, and no spawn or wake-up stands between them.
// Tasks of other keys, and tasks without a key, run in parallel as ever.
type keyLines struct {
	mu sync.Mutex
	// lines maps a key to its tasks: the running one first, then those
	// waiting. A key with no task in the worker has no entry.
	lines map[string][]*inflight
}

func (k *keyLines) init() { k.lines = make(map[string][]*inflight) }

// enter records r, a task with key, and reports whether it may run now:
// it may if no other task of its key is in the worker.
func (k *keyLines) enter(key string, r *inflight) bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	line := k.lines[key]
	k.lines[key] = append(line, r)
	return len(line) == 0
}

// next ends the running task of key and returns the task to run after
// it, or nil if the line is empty.
func (k *keyLines) next(key string) *inflight {
	k.mu.Lock()
	defer k.mu.Unlock()
	line := k.lines[key]
	if len(line) <= 1 {
		delete(k.lines, key)
		return nil
	}
	line[0] = nil // the GC may take the ended task
	k.lines[key] = line[1:]
	return line[1]
}

// taskKey returns t's key, or "" if it has none.
func taskKey(t Task) string {
	if kt, ok := t.(Keyed); ok {
		return kt.Key()
	}
	return ""
}
