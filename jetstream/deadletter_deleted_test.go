package weftjs_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	weftjs "github.com/weftrt/weft/jetstream"
)

// The dead-letter stream is deleted while the source runs (an operator
// cleaning up). The source made it at start, and a terminated task's
// record must still be stored: before, every Terminate failed with
// ErrDeadLetter until the worker was restarted, and the task came back
// after each AckWait, never run and never terminated, until the server's
// MaxDeliver stranded it in the work stream.
func TestDeadLetterStreamDeletedIsMadeAgain(t *testing.T) {
	srv := startServer(t)
	js := connect(t, srv.url())
	src := newSource(t, js, weftjs.Config{Stream: "DLGONE", PollWait: 100 * time.Millisecond, AckWait: 2 * time.Second})
	defer src.Close()
	require.NoError(t, js.DeleteStream(context.Background(), src.Config().DeadLetterStream))
	publishN(t, js, src.Subject(), 0, 1)
	poisonAll(t, src, 1)
	require.Zero(t, streamMsgs(t, js, src.Config().Stream))
	require.EqualValues(t, 1, streamMsgs(t, js, src.Config().DeadLetterStream), "the terminated task is in the dead-letter stream")
}
