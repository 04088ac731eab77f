package intake

// KeyLines returns how many keys have a line in w: tasks of theirs
// running, waiting, or being handed back.
func KeyLines(w *Worker) int {
	w.keys.mu.Lock()
	defer w.keys.mu.Unlock()
	return len(w.keys.lines)
}

// KeyLineLen returns how many tasks of key are in its line in w: the
// running one (or the one being handed back) and those waiting behind it.
func KeyLineLen(w *Worker, key string) int {
	w.keys.mu.Lock()
	defer w.keys.mu.Unlock()
	return len(w.keys.lines[key])
}
