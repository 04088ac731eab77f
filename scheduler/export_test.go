package scheduler

// Probes returns how many deques p's workers have tried to steal from.
func Probes(p *Pool) uint64 { return p.eng.Counters().Probes }

// Asleep returns how many of p's workers are blocked asleep.
func Asleep(p *Pool) int {
	_, sleeping := p.eng.Sleep().Counts()
	return sleeping
}

// HandedOver returns how many of p's Blocks had a stand-in take their
// worker over.
func HandedOver(p *Pool) uint64 { return p.eng.Counters().HandedOver }
