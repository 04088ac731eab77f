package weftotel

import (
	"go.opentelemetry.io/otel/metric"

	"github.com/weftrt/weft/intake"
	"github.com/weftrt/weft/otel/internal/observe"
	"github.com/weftrt/weft/slots"
)

type stats = intake.Stats

func task(name, desc string, read func(stats) uint64) observe.Figure[stats] {
	return observe.Count("weft.intake.task."+name, "{task}", desc, read)
}

var workerFigures = append([]observe.Figure[stats]{
	observe.Flag("weft.intake.paused", "{worker}", "1 while the worker is paused (Worker.Pause), else 0.",
		func(s stats) bool { return s.Paused }),
	observe.Level("weft.intake.poller.count", "{poller}", "Poller goroutines running.",
		func(s stats) int64 { return int64(s.Pollers) }),
	observe.Level("weft.intake.poller.target", "{poller}", "Pollers the worker's scaler wants.",
		func(s stats) int64 { return int64(s.PollerTarget) }),
	observe.Count("weft.intake.polls", "{poll}", "Polls made (answered, failed or cancelled).",
		func(s stats) uint64 { return s.Polls }),
	observe.Count("weft.intake.poll.empty", "{poll}", "Polls answered with no task.",
		func(s stats) uint64 { return s.EmptyPolls }),
	observe.Count("weft.intake.poll.errors", "{poll}", "Polls that failed (the source is down).",
		func(s stats) uint64 { return s.PollErrors }),
	observe.Count("weft.intake.poll.pauses", "{pause}", "Pauses taken after empty polls (Config.EmptyPollBackoff).",
		func(s stats) uint64 { return s.EmptyPollPauses }),
	observe.Reading("weft.intake.poll.latency", "s", "Poll latency, smoothed over the last few polls (reported once a poll was made).",
		func(s stats) float64 { return s.PollTime.Seconds() }).When(func(s stats) bool { return s.Polls > 0 }),
	task("received", "Tasks polled.", func(s stats) uint64 { return s.Received }),
	task("redelivered", "Tasks polled that were delivered before.", func(s stats) uint64 { return s.Redelivered }),
	task("started", "Tasks whose handler began.", func(s stats) uint64 { return s.Started }),
	task("acked", "Tasks acknowledged.", func(s stats) uint64 { return s.Acked }),
	task("nacked", "Failed tasks returned for a retry.", func(s stats) uint64 { return s.Nacked }),
	task("terminated", "Poison tasks terminated.", func(s stats) uint64 { return s.Terminated }),
	task("handed_back", "Tasks returned unrun (pause, shutdown).", func(s stats) uint64 { return s.HandedBack }),
	task("failed", "Tasks whose handler returned an error or panicked.", func(s stats) uint64 { return s.Failed }),
	task("panicked", "Tasks whose handler panicked.", func(s stats) uint64 { return s.Panics }),
	observe.Level("weft.intake.task.settling", "{task}", "Tasks ended whose Ack, Nack or Terminate is in flight.",
		func(s stats) int64 { return s.Settling }),
	observe.Count("weft.intake.settle.errors", "{call}", "Ack, Nack, Terminate and InProgress calls that failed.",
		func(s stats) uint64 { return s.SettleErrors }),
	observe.Count("weft.intake.heartbeats", "{call}", "InProgress calls made for long tasks.",
		func(s stats) uint64 { return s.Heartbeats }),
	observe.Whole("weft.intake.backlog", "{task}", "Tasks waiting in the source, as it counts them (reported only for a source that is an intake.Backlogger).",
		func(s stats) int64 { return s.Backlog }).When(func(s stats) bool { return s.Backlog >= 0 }),
	observe.Reading("weft.intake.backlog_per_free_slot", "{task}", "The backlog divided by the slots not running a task; +Inf with no slot free while tasks wait. Scale out while it stays above a threshold.",
		func(s stats) float64 { return s.BacklogPerFreeSlot }).When(func(s stats) bool { return s.BacklogPerFreeSlot >= 0 }),
}, slotFigures("weft.intake.slot.", func(s stats) slots.Stats { return s.Slots })...)

// InstrumentWorker reports w's figures (intake.Stats) on instruments of a
// meter from mp, read from a Stats snapshot each time a reader collects:
// polls and their latency, tasks received, started, acked, nacked and
// the rest, the source's backlog and the backlog per free slot (the
// figure to scale on, see docs/metrics.md), and the worker's slots
// (weft.intake.slot.*).
//
// Unregister the returned Registration when w is no longer watched; until
// then it holds w, and a closed worker reports its last figures. It
// returns an error only if mp refuses an instrument or the callback. A
// nil mp or w panics.
func InstrumentWorker(mp metric.MeterProvider, w *intake.Worker, opts ...Option) (metric.Registration, error) {
	mustHave(mp, w != nil, "InstrumentWorker", "*intake.Worker")
	snap := func() (stats, bool) { return w.Stats(), true }
	return observe.Register(meter(mp), config(opts).Attributes("weft.intake.name"), snap, workerFigures)
}
