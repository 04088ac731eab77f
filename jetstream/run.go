package weftjs

import (
	"context"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/weftrt/weft/intake"
)

// Run runs an intake worker on src (cfg.Source, if nil) until ctx ends or
// src's connection is closed for good, whichever comes first, then shuts
// the worker down, waiting up to grace for the running tasks (0: as long
// as they take).
//
// It returns nil when ctx ended, and an error wrapping ErrConnClosed and
// the connection's last error (nats.ErrAuthorization, say, when the
// credentials were rotated under the worker) when the connection closed:
// no poll can succeed any more, so a supervisor should make a new
// connection and run again. Errors the worker handles by itself still go
// to cfg.OnError as they happen.
func Run(ctx context.Context, src *Source, cfg intake.Config, grace time.Duration) error {
	if cfg.Source == nil {
		cfg.Source = src
	}
	if lease := src.Lease(); cfg.Heartbeat >= lease {
		// The lease would run out between two heartbeats: a long task
		// would be delivered again while it still runs.
		return fmt.Errorf("%w: intake Heartbeat %v: want below the consumer's AckWait %v (0: a third of it)", ErrConfig, cfg.Heartbeat, lease)
	}
	closed := src.nc.StatusChanged(nats.CLOSED)
	defer src.nc.RemoveStatusListener(closed)
	w, err := intake.New(cfg)
	if err != nil {
		return err
	}
	var runErr error
	if src.nc.IsClosed() { // closed before the listener was registered
		runErr = src.closedErr()
	} else {
		select {
		case <-ctx.Done():
		case <-closed:
			runErr = src.closedErr()
		}
	}
	sctx := context.Background()
	if grace > 0 {
		var cancel context.CancelFunc
		sctx, cancel = context.WithTimeout(sctx, grace)
		defer cancel()
	}
	if err := w.Shutdown(sctx); err != nil && runErr == nil {
		return fmt.Errorf("weft/jetstream: shutting the worker down: %w", err)
	}
	return runErr
}
