package weftotel

import (
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/weftrt/weft/otel/internal/observe"
	"github.com/weftrt/weft/scheduler"
	"github.com/weftrt/weft/slots"
)

// The attribute that splits weft.pool.worker.count by what the workers
// do.
var workerState = attribute.Key("weft.pool.worker.state")

// poolFigures are a pool's instruments, read from Pool.Stats.
var poolFigures = append([]observe.Figure[scheduler.Stats]{
	observe.Level("weft.pool.worker.count", "{worker}", "Worker goroutines, by state: running a job (busy), looking for one (searching), or asleep.",
		func(s scheduler.Stats) int64 { return int64(max(s.Workers-s.Idle, 0)) }).In(workerState.String("busy")),
	observe.Level("weft.pool.worker.count", "{worker}", "",
		func(s scheduler.Stats) int64 { return int64(max(s.Idle-s.Sleeping, 0)) }).In(workerState.String("searching")),
	observe.Level("weft.pool.worker.count", "{worker}", "",
		func(s scheduler.Stats) int64 { return int64(s.Sleeping) }).In(workerState.String("sleeping")),
	observe.Count("weft.pool.job.executed", "{job}", "Jobs a worker took from a queue and ran.",
		func(s scheduler.Stats) uint64 { return s.Executed }),
	observe.Count("weft.pool.job.stolen", "{job}", "Jobs taken from another worker's deque.",
		func(s scheduler.Stats) uint64 { return s.Steals }),
	observe.Count("weft.pool.job.injected", "{job}", "Jobs that entered from outside the pool (Run, Spawn, Broadcast).",
		func(s scheduler.Stats) uint64 { return s.Injected }),
	observe.Count("weft.pool.fork.published", "{fork}", "Forks a heartbeat moved to a worker's deque, where thieves can take them.",
		func(s scheduler.Stats) uint64 { return s.Published }),
	observe.Count("weft.pool.worker.sleeps", "{sleep}", "Times a worker went to sleep for lack of work.",
		func(s scheduler.Stats) uint64 { return s.Sleeps }),
	observe.Count("weft.pool.worker.wakeups", "{wakeup}", "Times a sleeping worker was woken.",
		func(s scheduler.Stats) uint64 { return s.Wakeups }),
	observe.Count("weft.pool.worker.blocks", "{call}", "Worker.Block calls: waits during which a stand-in could run the worker's queue.",
		func(s scheduler.Stats) uint64 { return s.Blocked }),
	observe.Count("weft.pool.worker.replaced", "{worker}", "Worker goroutines started in place of one that runtime.Goexit ended.",
		func(s scheduler.Stats) uint64 { return s.Replaced }),
	observe.Level("weft.pool.task.pending", "{task}", "Outside tasks accepted and not yet finished.",
		func(s scheduler.Stats) int64 { return s.Pending }),
}, slotFigures("weft.pool.slot.", func(s scheduler.Stats) slots.Stats { return s.Slots })...)

// InstrumentPool reports p's figures (scheduler.Stats) on instruments of
// a meter from mp, read from a Stats snapshot each time a reader
// collects: the pool's hot paths gain no work. The figures, their names
// and units are listed in docs/metrics.md; the slot figures
// (weft.pool.slot.*) are those of the pool's admission supplier.
//
// Unregister the returned Registration when the pool is no longer
// watched; until then it holds p. Once p is closed, its figures are no
// longer reported. It returns an error only if mp refuses an instrument
// or the callback. A nil mp or p panics.
func InstrumentPool(mp metric.MeterProvider, p *scheduler.Pool, opts ...Option) (metric.Registration, error) {
	mustHave(mp, p != nil, "InstrumentPool", "*scheduler.Pool")
	snap := func() (scheduler.Stats, bool) {
		if p.Closed() {
			return scheduler.Stats{}, false
		}
		return p.Stats(), true
	}
	return observe.Register(meter(mp), config(opts).Attributes("weft.pool.name"), snap, poolFigures)
}
