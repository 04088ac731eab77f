package weftjs_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/weftrt/weft/intake"
	weftjs "github.com/weftrt/weft/jetstream"
)

// A terminate whose record is stored but whose +TERM fails (here the
// consumer is deleted under the worker, so that nobody answers it) keeps
// the task, which comes back and is terminated again: the second record
// is a duplicate of the first (Nats-Msg-Id), so the dead-letter stream
// holds one. Stats.DeadLettered counts terminated tasks stored there, so
// it counts one too; it counted every record publish, duplicates and
// publishes whose +TERM then failed included, and said two.
func TestDeadLetteredCountsATaskOnceWhenItsTermIsRetried(t *testing.T) {
	srv := startServer(t)
	js := connect(t, srv.url())
	src := newSource(t, js, weftjs.Config{AckWait: time.Minute, PollWait: 100 * time.Millisecond})
	defer src.Close()
	publishN(t, js, src.Subject(), 0, 1)
	ctx := context.Background()
	poll := func() intake.Task {
		t.Helper()
		var got []intake.Task
		eventually(t, 10*time.Second, func() bool {
			got, _ = src.Poll(ctx, 1) // the first poll after the delete fails, and binds again
			return len(got) == 1
		}, "the task delivered")
		return got[0]
	}

	task := poll()
	require.NoError(t, js.DeleteConsumer(ctx, src.Config().Stream, src.Config().Consumer))
	require.Error(t, task.Terminate(ctx, "poison"), "nobody answers the +TERM")
	require.EqualValues(t, 1, streamMsgs(t, js, src.Config().Stream), "the task is kept")
	require.Zero(t, src.Stats().DeadLettered, "no task was terminated")

	task = poll()
	require.NoError(t, task.Terminate(ctx, "poison"))
	require.Zero(t, streamMsgs(t, js, src.Config().Stream))
	require.EqualValues(t, 1, streamMsgs(t, js, src.Config().DeadLetterStream), "one record")
	require.EqualValues(t, 1, src.Stats().DeadLettered, "one task dead-lettered")
}
