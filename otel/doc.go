// Package weftotel reports weft's figures as OpenTelemetry metrics: a
// pool's workers and jobs, a slot Tracker's and a supplier's slots, a task
// worker's polls, tasks and backlog. Each component gets one call, which
// registers observable instruments on a meter from the MeterProvider you
// give:
//
//	reg, err := weftotel.InstrumentPool(mp, pool, weftotel.WithName("render"))
//	...
//	defer reg.Unregister()
//
// The instruments read the component's Stats snapshot when a reader
// collects (a Prometheus scrape, an OTLP export), once per collection for
// all of them, so the component's hot paths do no work for them: a fork
// on an instrumented pool costs what it costs on any other.
//
// docs/metrics.md lists every instrument with its unit, type and meaning,
// says which one to scale on (weft.intake.backlog_per_free_slot), and
// shows a /metrics page for Prometheus through OpenTelemetry's exporter;
// the JetStream source's figures come from the weftjsotel package in the
// nested module github.com/weftrt/weft/otel/jetstream.
//
// # Pitfalls
//
//   - Name each component you instrument on one MeterProvider
//     (WithName): two unnamed pools report under the same attributes, and
//     a collection keeps only one of their figures.
//   - A Registration holds its component until Unregister. A closed pool
//     reports nothing; a closed task worker, Tracker or supplier reports
//     its last figures until you unregister it.
//   - The figures are a snapshot: each is read on its own, so two of them
//     may disagree by the few events that happened between their reads.
package weftotel
