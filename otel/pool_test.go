package weftotel_test

import (
	"context"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/weftrt/weft/join"
	weftotel "github.com/weftrt/weft/otel"
	"github.com/weftrt/weft/scheduler"
	"github.com/weftrt/weft/slots"
)

var (
	render = []attribute.KeyValue{attribute.String("weft.pool.name", "render"), attribute.String("tenant", "a")}
	named  = []weftotel.Option{weftotel.WithName("render"), weftotel.WithAttributes(attribute.String("tenant", "a"))}
)

func with(base []attribute.KeyValue, kv ...attribute.KeyValue) []attribute.KeyValue {
	return append(append([]attribute.KeyValue(nil), base...), kv...)
}

func noop(_ *scheduler.Worker, x int) int { return x }

// A fork reaches another worker only through a heartbeat's publication
// and a steal; the pool's figures show both, equal to its Stats. a keeps
// forking until b has run, so the test waits on that, not on a clock.
func TestPoolFiguresCountStealsAndPublications(t *testing.T) {
	mp, r := newProvider(t)
	p, err := scheduler.New(scheduler.WithWorkers(2), scheduler.WithHeartbeat(time.Nanosecond))
	require.NoError(t, err)
	defer p.Close()
	reg, err := weftotel.InstrumentPool(mp, p, named...)
	require.NoError(t, err)
	defer func() { require.NoError(t, reg.Unregister()) }()

	var ran atomic.Bool
	require.NoError(t, p.Run(context.Background(), func(w *scheduler.Worker) error {
		join.Join(w,
			func(w *scheduler.Worker) {
				for !ran.Load() {
					join.Call(w, noop, 1, 2)
				}
			},
			func(*scheduler.Worker) { ran.Store(true) })
		return nil
	}))

	got := collect(t, r)
	s := p.Stats()
	assert.Positive(t, s.Steals)
	assert.Positive(t, s.Published)
	assert.EqualValues(t, s.Steals, value(t, got, "weft.pool.job.stolen", render...))
	assert.EqualValues(t, s.Published, value(t, got, "weft.pool.fork.published", render...))
	assert.EqualValues(t, s.Executed, value(t, got, "weft.pool.job.executed", render...))
	assert.EqualValues(t, 1, value(t, got, "weft.pool.job.injected", render...), "one Run")
}

// Workers by state, pending tasks and slots follow a task that holds a
// worker, and the sleep and wake-up counts follow the workers.
// synctest.Wait lets every worker settle (asleep, or blocked in the task)
// before each collection.
func TestPoolFiguresFollowWorkersTasksAndSlots(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mp, r := newProvider(t)
		p, err := scheduler.New(scheduler.WithWorkers(3), scheduler.WithSupplier(slots.NewFixed(4)))
		require.NoError(t, err)
		defer p.Close()
		reg, err := weftotel.InstrumentPool(mp, p, named...)
		require.NoError(t, err)
		defer func() { require.NoError(t, reg.Unregister()) }()
		workers := func(got map[string]metricdata.Metrics) [3]float64 {
			return [3]float64{
				value(t, got, "weft.pool.worker.count", with(render, attribute.String("weft.pool.worker.state", "busy"))...),
				value(t, got, "weft.pool.worker.count", with(render, attribute.String("weft.pool.worker.state", "searching"))...),
				value(t, got, "weft.pool.worker.count", with(render, attribute.String("weft.pool.worker.state", "sleeping"))...),
			}
		}
		slot := func(got map[string]metricdata.Metrics, state string) float64 {
			return value(t, got, "weft.pool.slot.count", with(render, attribute.String("weft.slot.state", state))...)
		}

		synctest.Wait()
		got := collect(t, r)
		assert.Equal(t, [3]float64{0, 0, 3}, workers(got), "an idle pool sleeps")
		assert.EqualValues(t, 3, value(t, got, "weft.pool.worker.sleeps", render...))
		assert.EqualValues(t, 4, value(t, got, "weft.pool.slot.max", render...))
		assert.EqualValues(t, 4, slot(got, "available"))

		release := make(chan struct{})
		require.NoError(t, p.Spawn(context.Background(), func(*scheduler.Worker) { <-release }))
		synctest.Wait()
		got = collect(t, r)
		assert.Equal(t, [3]float64{1, 0, 2}, workers(got), "one worker held by the task")
		assert.EqualValues(t, 1, value(t, got, "weft.pool.task.pending", render...))
		assert.EqualValues(t, 1, value(t, got, "weft.pool.worker.wakeups", render...))
		assert.Equal(t, [3]float64{1, 0, 3}, [3]float64{slot(got, "used"), slot(got, "reserved"), slot(got, "available")})
		assert.EqualValues(t, 1, value(t, got, "weft.pool.slot.issued", render...))

		close(release)
		synctest.Wait()
		got = collect(t, r)
		assert.Equal(t, [3]float64{0, 0, 3}, workers(got))
		assert.EqualValues(t, 0, value(t, got, "weft.pool.task.pending", render...))
		assert.EqualValues(t, 4, value(t, got, "weft.pool.worker.sleeps", render...))
		assert.EqualValues(t, 0, slot(got, "used"))
	})
}

// TrySpawn on a pool whose one slot is taken is refused, and the refusal
// counts.
func TestPoolFiguresCountRefusals(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mp, r := newProvider(t)
		p, err := scheduler.New(scheduler.WithWorkers(1), scheduler.WithSupplier(slots.NewFixed(1)))
		require.NoError(t, err)
		defer p.Close()
		reg, err := weftotel.InstrumentPool(mp, p)
		require.NoError(t, err)
		defer func() { require.NoError(t, reg.Unregister()) }()

		release := make(chan struct{})
		require.NoError(t, p.Spawn(context.Background(), func(*scheduler.Worker) { <-release }))
		require.ErrorIs(t, p.TrySpawn(func(*scheduler.Worker) {}), scheduler.ErrNoSlot)
		assert.EqualValues(t, 1, value(t, collect(t, r), "weft.pool.slot.refused"), "no name, no attributes")
		close(release)
	})
}

// A closed pool reports nothing: its series drop out of the next
// collection.
func TestClosedPoolReportsNothing(t *testing.T) {
	mp, r := newProvider(t)
	p, err := scheduler.New(scheduler.WithWorkers(1))
	require.NoError(t, err)
	reg, err := weftotel.InstrumentPool(mp, p)
	require.NoError(t, err)
	defer func() { require.NoError(t, reg.Unregister()) }()
	require.NotEmpty(t, points(collect(t, r)["weft.pool.worker.count"]))

	p.Close()
	for name, m := range collect(t, r) {
		assert.Empty(t, points(m), name)
	}
}
