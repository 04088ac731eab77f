package main

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	natsjs "github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"
	weftjs "github.com/weftrt/weft/jetstream"
	"github.com/weftrt/weft/jetstream/natstest"
)

// `weftjs replay` puts a dead-letter record back on the work queue, with
// its payload and its own headers, and deletes the record.
func TestReplaySubcommand(t *testing.T) {
	srv, err := natstest.Start(t.Context(), natstest.Options{Dir: t.TempDir()})
	require.NoError(t, err)
	defer func() { require.NoError(t, srv.Shutdown(context.Background())) }()
	nc, err := nats.Connect(srv.URL())
	require.NoError(t, err)
	defer nc.Close()
	js, err := natsjs.New(nc)
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	src, err := weftjs.NewSource(ctx, js, weftjs.Config{Stream: "JOBS"})
	require.NoError(t, err)
	defer src.Close()

	rec := nats.NewMsg(src.Config().DeadLetterSubject)
	rec.Data = []byte("payload")
	rec.Header = nats.Header{
		"Trace-Id":                  {"t1"},
		weftjs.HeaderDeadStream:     {"JOBS"},
		weftjs.HeaderDeadSubject:    {"jobs.task"},
		weftjs.HeaderDeadReason:     {"it failed"},
		weftjs.HeaderDeadDeliveries: {"4"},
	}
	_, err = js.PublishMsg(ctx, rec)
	require.NoError(t, err)

	var out, errOut bytes.Buffer
	require.NoError(t, replayCmd([]string{"-url", srv.URL(), "-stream", "JOBS"}, &out, &errOut), errOut.String())
	require.Contains(t, out.String(), "replayed 1 task(s) from JOBS_DEAD")

	jobs, err := js.Stream(ctx, "JOBS")
	require.NoError(t, err)
	m, err := jobs.GetMsg(ctx, 1)
	require.NoError(t, err)
	require.Equal(t, "jobs.task", m.Subject)
	require.Equal(t, "payload", string(m.Data))
	require.Equal(t, "t1", m.Header.Get("Trace-Id"))
	require.Empty(t, m.Header.Get(weftjs.HeaderDeadReason))
	dead, err := js.Stream(ctx, "JOBS_DEAD")
	require.NoError(t, err)
	info, err := dead.Info(ctx)
	require.NoError(t, err)
	require.Zero(t, info.State.Msgs)

	require.Error(t, replayCmd([]string{"-stream", "JOBS"}, &out, &errOut), "no -url")
}
