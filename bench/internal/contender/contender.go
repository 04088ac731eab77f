package contender

import (
	"fmt"
	"slices"
	"sync"

	"github.com/weftrt/weft/bench/internal/result"
	"github.com/weftrt/weft/internal/work"
	"github.com/weftrt/weft/scheduler"
)

// Caps is the set of things a contender can do.
type Caps uint8

// The capabilities. An Instance must implement the interface each one
// names.
const (
	Seq      Caps = 1 << iota // runs a workload's plain sequential code; needs nothing
	Fork                      // forks through a work.Forker: Forking
	Kernel                    // runs weft's zero-allocation kernels: KernelRunner
	Submit                    // takes fire-and-forget jobs: Submitter
	Resident                  // keeps goroutines between jobs, so its idle cost is worth measuring
	// Recommended: runs the form docs/forks.md recommends for each
	// workload: its kernel where the workload marks the kernel as that
	// form (KernelRunner), else its closures (Forking).
	Recommended
	// Closures: forks over the workload's closures (Forking), and only
	// where contender weft runs a kernel instead: elsewhere it would run
	// what weft runs.
	Closures
)

// Contender is one way of running the workloads. A case starts it with a
// number of workers (GOMAXPROCS is already set to that number) and closes
// the Instance when done.
type Contender struct {
	Name  string
	Doc   string // what it is, in one line: for -list and the legend under every table
	Role  result.Role
	Caps  Caps
	Start func(workers int) (Instance, error)
}

// Can reports whether c has every capability in caps.
func (c Contender) Can(caps Caps) bool { return c.Caps&caps == caps }

// Instance is a started contender.
type Instance interface {
	Close()
}

// Forking instances run a fork-join root on a Forker of theirs and return
// when it has.
type Forking interface {
	Instance
	Fork(root func(work.Forker)) error
}

// KernelRunner instances run a weft kernel on a worker of their pool.
type KernelRunner interface {
	Instance
	RunKernel(k func(*scheduler.Worker)) error
}

// Submitter instances queue f to run some time later and return at once.
type Submitter interface {
	Instance
	Submit(f func()) error
}

var (
	mu       sync.Mutex
	registry []Contender // in registration order, which is the tables' order
)

// Register adds c to the contenders the harness knows. It panics if the
// name is taken or Start is nil: both are programming errors found at
// start-up.
func Register(c Contender) {
	mu.Lock()
	defer mu.Unlock()
	if c.Start == nil || c.Name == "" {
		panic("weft/bench: contender without a name or Start")
	}
	if slices.ContainsFunc(registry, func(o Contender) bool { return o.Name == c.Name }) {
		panic("weft/bench: contender " + c.Name + " registered twice")
	}
	registry = append(registry, c)
}

// All returns every registered contender.
func All() []Contender {
	mu.Lock()
	defer mu.Unlock()
	return slices.Clone(registry)
}

// Names returns the names of cs.
func Names(cs []Contender) []string {
	names := make([]string, len(cs))
	for i, c := range cs {
		names[i] = c.Name
	}
	return names
}

// Lookup returns the named contenders in registry order, or an error
// naming the first unknown one.
func Lookup(names []string) ([]Contender, error) {
	all := All()
	for _, n := range names {
		if !slices.ContainsFunc(all, func(c Contender) bool { return c.Name == n }) {
			return nil, fmt.Errorf("unknown contender %q (known: %v)", n, Names(all))
		}
	}
	return slices.DeleteFunc(all, func(c Contender) bool { return !slices.Contains(names, c.Name) }), nil
}
