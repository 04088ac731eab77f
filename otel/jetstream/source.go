package weftjsotel

import (
	"go.opentelemetry.io/otel/metric"

	weftjs "github.com/weftrt/weft/jetstream"
	weftotel "github.com/weftrt/weft/otel"
	"github.com/weftrt/weft/otel/internal/observe"
)

// ScopeName is the instrumentation scope of the instruments this package
// makes.
const ScopeName = "github.com/weftrt/weft/otel/jetstream"

var sourceFigures = []observe.Figure[weftjs.Stats]{
	observe.Count("weft.jetstream.task.dead_lettered", "{task}", "Terminated tasks stored in the dead-letter stream, once the server confirmed the +TERM.",
		func(s weftjs.Stats) uint64 { return s.DeadLettered }),
	observe.Count("weft.jetstream.task.handed_back", "{task}", "Tasks returned unrun by republishing them (Task.HandBack).",
		func(s weftjs.Stats) uint64 { return s.HandedBack }),
	observe.Count("weft.jetstream.poll.throttled", "{poll}", "Polls the server answered \"come back later\" (MaxAckPending reached).",
		func(s weftjs.Stats) uint64 { return s.ThrottledPolls }),
	observe.Count("weft.jetstream.message.set_aside", "{message}", "Messages that reached a poll and could not be tasks: reported, never run.",
		func(s weftjs.Stats) uint64 { return s.SetAside }),
}

// InstrumentSource reports src's own figures (weftjs.Stats) on
// instruments of a meter from mp, read from a Stats snapshot each time a
// reader collects; weftotel.WithName names the source (the attribute
// weft.jetstream.name). Its redeliveries and backlog are the worker's
// figures: instrument the worker too (weftotel.InstrumentWorker).
//
// Unregister the returned Registration when src is no longer watched;
// until then it holds src, and a closed source reports its last figures.
// It returns an error only if mp refuses an instrument or the callback.
// A nil mp or src panics.
func InstrumentSource(mp metric.MeterProvider, src *weftjs.Source, opts ...weftotel.Option) (metric.Registration, error) {
	switch {
	case mp == nil:
		panic("weft/otel/jetstream: InstrumentSource: nil metric.MeterProvider (pass otel.GetMeterProvider() for the global one)")
	case src == nil:
		panic("weft/otel/jetstream: InstrumentSource: nil *weftjs.Source")
	}
	var cfg observe.Config
	for _, o := range opts {
		if o != nil {
			o(&cfg)
		}
	}
	snap := func() (weftjs.Stats, bool) { return src.Stats(), true }
	return observe.Register(mp.Meter(ScopeName), cfg.Attributes("weft.jetstream.name"), snap, sourceFigures)
}
