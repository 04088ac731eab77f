package weftjs_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	weftjs "github.com/weftrt/weft/jetstream"
)

// A dead-letter stream that is the work stream itself, its subject one
// of the work stream's: every record would be a task again (run, acked,
// gone from the dead letters). The Config must be refused.
func TestDeadLetterInsideWorkStreamIsRefused(t *testing.T) {
	srv := startServer(t)
	js := connect(t, srv.url())
	for _, cfg := range []weftjs.Config{
		{DeadLetterStream: "WEFT_TASKS", DeadLetterSubject: "weft_tasks.dead"},
		{Subjects: []string{"jobs.*"}, DeadLetterStream: "WEFT_TASKS", DeadLetterSubject: "jobs.dead"},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		src, err := weftjs.NewSource(ctx, js, cfg)
		cancel()
		if err == nil {
			src.Close()
		}
		require.ErrorIs(t, err, weftjs.ErrConfig, "%+v", cfg)
	}
}
