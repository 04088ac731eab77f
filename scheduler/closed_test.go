package scheduler_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/weftrt/weft/scheduler"
)

// Closed turns true once Shutdown or Close begins, and the pool then
// refuses work with ErrClosed.
func TestClosedReportsShutdown(t *testing.T) {
	for name, stop := range map[string]func(p *scheduler.Pool){
		"Close":    func(p *scheduler.Pool) { p.Close() },
		"Shutdown": func(p *scheduler.Pool) { require.NoError(t, p.Shutdown(context.Background())) },
	} {
		p, err := scheduler.New(scheduler.WithWorkers(1))
		require.NoError(t, err)
		require.False(t, p.Closed(), name)
		stop(p)
		require.True(t, p.Closed(), name)
		require.ErrorIs(t, p.Run(context.Background(), func(*scheduler.Worker) error {
			return nil
		}), scheduler.ErrClosed, name)
	}
}
