// Package weftjsotel reports a weft JetStream source's own figures
// (weftjs.Source.Stats: tasks dead-lettered and handed back, polls
// throttled, messages set aside) as OpenTelemetry metrics, beside the
// task worker's from weftotel.InstrumentWorker:
//
//	reg, err := weftjsotel.InstrumentSource(mp, src, weftotel.WithName("orders"))
//	...
//	defer reg.Unregister()
//
// It is a module of its own, github.com/weftrt/weft/otel/jetstream, so
// that github.com/weftrt/weft/otel does not bring nats.go to users who do
// not use JetStream, and the jetstream module does not bring
// OpenTelemetry to those who do not watch it. docs/metrics.md lists the
// instruments.
package weftjsotel
