package intake

// KeyLines returns how many keys have a line in w: tasks of theirs
// running, waiting, or being handed back.
func KeyLines(w *Worker) int {
	w.keys.mu.Lock()
	defer w.keys.mu.Unlock()
	return len(w.keys.lines)
}
