package scheduler

// Probes returns how many deques p's workers have tried to steal from.
func Probes(p *Pool) uint64 {
	var n uint64
	for _, w := range p.workers {
		n += w.probes.Load()
	}
	return n
}

// Asleep returns how many of p's workers are blocked asleep.
func Asleep(p *Pool) int {
	_, sleeping := p.sleep.Counts()
	return sleeping
}
