package weftotel_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/weftrt/weft/intake"
	weftotel "github.com/weftrt/weft/otel"
	"github.com/weftrt/weft/slots"
)

var orders = []attribute.KeyValue{attribute.String("weft.intake.name", "orders")}

// handle runs a test task by its payload: "fail" fails its first
// delivery, "panic" panics in its first, "poison" is terminated, the rest
// succeed.
func handle(_ context.Context, t intake.Task) error {
	switch p := string(t.Payload()); {
	case p == "poison":
		return intake.Poison(errors.New("poison"))
	case t.Deliveries() > 1:
		return nil
	case p == "fail":
		return errors.New("fail")
	case p == "panic":
		panic("panic")
	}
	return nil
}

// A worker's figures follow its tasks: received, started, acked, nacked
// after a failure, panics, terminated poison, the backlog while paused
// and the backlog per free slot. synctest.Wait lets the worker settle
// before each collection; sleeping in the bubble runs the fake clock
// past the retry backoff.
func TestWorkerFiguresFollowTasks(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mp, r := newProvider(t)
		q := intake.NewMemQueue(intake.MemQueueConfig{PollWait: time.Second})
		w, err := intake.New(intake.Config{Source: q, Supplier: slots.NewFixed(2), Handler: handle})
		require.NoError(t, err)
		defer w.Close()
		reg, err := weftotel.InstrumentWorker(mp, w, weftotel.WithName("orders"))
		require.NoError(t, err)
		defer func() { require.NoError(t, reg.Unregister()) }()
		fig := func(got map[string]metricdata.Metrics, name string) float64 { return value(t, got, name, orders...) }

		for _, p := range []string{"a", "b", "fail", "panic", "poison"} {
			q.Put([]byte(p))
		}
		time.Sleep(time.Minute) // on the bubble's clock: every retry's backoff passes
		synctest.Wait()
		got := collect(t, r)
		assert.EqualValues(t, 7, fig(got, "weft.intake.task.received"), "five tasks, two of them twice")
		assert.EqualValues(t, 2, fig(got, "weft.intake.task.redelivered"))
		assert.EqualValues(t, 7, fig(got, "weft.intake.task.started"))
		assert.EqualValues(t, 4, fig(got, "weft.intake.task.acked"))
		assert.EqualValues(t, 2, fig(got, "weft.intake.task.nacked"))
		assert.EqualValues(t, 3, fig(got, "weft.intake.task.failed"), "the error, the panic and the poison")
		assert.EqualValues(t, 1, fig(got, "weft.intake.task.panicked"))
		assert.EqualValues(t, 1, fig(got, "weft.intake.task.terminated"))
		assert.EqualValues(t, 0, fig(got, "weft.intake.paused"))
		assert.EqualValues(t, 0, fig(got, "weft.intake.backlog"))
		assert.EqualValues(t, 0, fig(got, "weft.intake.backlog_per_free_slot"))
		s := w.Stats()
		assert.EqualValues(t, s.Polls, fig(got, "weft.intake.polls"))
		assert.Equal(t, s.PollTime.Seconds(), fig(got, "weft.intake.poll.latency"))
		assert.EqualValues(t, 2, fig(got, "weft.intake.slot.max"))

		w.Pause()
		synctest.Wait()
		for range 5 {
			q.Put([]byte("later"))
		}
		got = collect(t, r)
		assert.EqualValues(t, 1, fig(got, "weft.intake.paused"))
		assert.EqualValues(t, 5, fig(got, "weft.intake.backlog"))
		assert.EqualValues(t, 2.5, fig(got, "weft.intake.backlog_per_free_slot"), "five tasks, two free slots")

		w.Resume()
		time.Sleep(time.Minute) // the bubble's clock again: the next retries' backoff
		synctest.Wait()
		got = collect(t, r)
		assert.EqualValues(t, 9, fig(got, "weft.intake.task.acked"))
		assert.EqualValues(t, 0, fig(got, "weft.intake.backlog"))
	})
}
