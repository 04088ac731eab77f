package wefttemporal

import (
	"context"
	"errors"
	"time"

	"github.com/weftrt/weft/scheduler"
	"go.temporal.io/sdk/activity"
)

// Compute runs f on a worker of pool for an activity, and waits for it:
// the way for an activity to spread its work over every core with par,
// join and scope, without a goroutine per piece. f gets the activity's
// ctx and the worker; inside, use the forms that take a worker
// (par.ForErr(ctx, w, ...), scope.Group(ctx, w, ...), join.Call), which
// share the work with the pool's other workers:
//
//	func Render(ctx context.Context, frames int) ([]Image, error) {
//		out := make([]Image, frames)
//		err := wefttemporal.Compute(ctx, pool, func(ctx context.Context, w *scheduler.Worker) error {
//			return par.ForErr(ctx, w, frames, func(i int) error {
//				var err error
//				out[i], err = renderFrame(ctx, i)
//				return err
//			})
//		})
//		return out, err
//	}
//
// A nil pool means scheduler.Default(). Compute returns context.Cause(ctx)
// without running f if ctx ends before f starts (while it waits for the
// pool's supplier or a free worker), the pool's error (scheduler.ErrClosed),
// or f's. A panic in f is re-raised here, as by scheduler.Pool.Run, and
// Temporal fails the activity with it.
//
// Heartbeats: the activity's goroutine waits in Compute, so Compute
// heartbeats for it (activity.RecordHeartbeat, which the SDK batches)
// every HeartbeatEvery, by default a third of the activity's
// HeartbeatTimeout, or every 10 seconds if it has none: Temporal delivers
// an activity's cancellation only in the reply to a heartbeat, so without
// them a cancelled activity would compute to its end. A heartbeat records
// no details unless WithHeartbeatDetails says which (an activity that
// resumes from its last heartbeat's details must say). With a ctx that is
// not an activity's, Compute does not heartbeat.
//
// Cancellation: when the activity is cancelled (or times out, or its
// worker stops) ctx ends, and the Err forms of par and scope stop
// handing out work; a body that runs long should also watch ctx itself.
// If f then returns ctx's error or its cause, Compute returns the cause,
// which the SDK set: for a cancellation a *temporal.CanceledError, which
// the activity should return as it is, so that Temporal records the
// activity as cancelled.
func Compute(ctx context.Context, pool *scheduler.Pool, f func(ctx context.Context, w *scheduler.Worker) error, opts ...ComputeOption) error {
	if ctx == nil {
		panic("weft/temporal: Compute with a nil context: pass the activity's")
	}
	if f == nil {
		panic("weft/temporal: Compute with a nil function")
	}
	var c computeConfig
	for _, o := range opts {
		if o == nil {
			panic("weft/temporal: Compute with a nil ComputeOption")
		}
		o(&c)
	}
	if pool == nil {
		pool = scheduler.Default()
	}
	if activity.IsActivity(ctx) {
		stop := c.heartbeat(ctx)
		defer stop()
	}
	return runOn(ctx, pool, f)
}

// runOn is Compute's one entry into the pool. Pool.Run keeps f from
// starting once ctx has ended and reports ctx's cause then.
func runOn(ctx context.Context, pool *scheduler.Pool, f func(ctx context.Context, w *scheduler.Worker) error) error {
	err := pool.Run(ctx, func(w *scheduler.Worker) error { return f(ctx, w) })
	if ctxErr := ctx.Err(); ctxErr != nil && errors.Is(err, ctxErr) {
		// The work stopped for ctx, and said so with ctx.Err() or its
		// cause depending on where it noticed: report the cause always,
		// which the SDK set (a *temporal.CanceledError for a
		// cancellation).
		return context.Cause(ctx)
	}
	return err
}

// ComputeOption configures Compute.
type ComputeOption func(*computeConfig)

type computeConfig struct {
	every   time.Duration
	details func() []any
}

// defaultHeartbeatEvery is how often Compute heartbeats for an activity
// without a HeartbeatTimeout. The SDK sends at most one heartbeat per 30
// seconds then, so this only bounds how stale the batched one is.
const defaultHeartbeatEvery = 10 * time.Second

// WithHeartbeatEvery makes Compute heartbeat every d instead of a third
// of the activity's HeartbeatTimeout. It panics if d is not positive.
func WithHeartbeatEvery(d time.Duration) ComputeOption {
	if d <= 0 {
		panic("weft/temporal: WithHeartbeatEvery with a duration <= 0")
	}
	return func(c *computeConfig) { c.every = d }
}

// WithHeartbeatDetails makes each of Compute's heartbeats record the
// details f returns (progress an activity resumes from on retry, read
// with activity.GetHeartbeatDetails). f is called from Compute's
// heartbeat goroutine while the work runs, so it must be safe to call
// concurrently with it (read progress from atomics). It panics if f is
// nil.
func WithHeartbeatDetails(f func() []any) ComputeOption {
	if f == nil {
		panic("weft/temporal: WithHeartbeatDetails with a nil function")
	}
	return func(c *computeConfig) { c.details = f }
}

// heartbeat starts heartbeating for the activity of ctx at once and then
// every period, until the returned stop is called (stop waits for the
// heartbeat goroutine to end).
func (c computeConfig) heartbeat(ctx context.Context) (stop func()) {
	every := c.every
	if every == 0 {
		every = defaultHeartbeatEvery
		if t := activity.GetInfo(ctx).HeartbeatTimeout; t > 0 {
			every = t / 3
		}
	}
	done, exited := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(exited)
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			c.beat(ctx)
			select {
			case <-tick.C:
			case <-done:
				return
			case <-ctx.Done():
				return
			}
		}
	}()
	return func() {
		close(done)
		<-exited
	}
}

func (c computeConfig) beat(ctx context.Context) {
	if c.details != nil {
		activity.RecordHeartbeat(ctx, c.details()...)
		return
	}
	activity.RecordHeartbeat(ctx)
}
