package weftjs_test

import (
	"context"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	natsjs "github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"
	weftjs "github.com/weftrt/weft/jetstream"
)

// Two `weftjs replay` runs at once (two operators, a retried job) over
// the same dead-letter stream: each record must go back once, not once
// per run.
func TestConcurrentReplaysPutEachTaskBackOnce(t *testing.T) {
	const n = 300
	srv := startServer(t)
	js := connect(t, srv.url())
	src := newSource(t, js, weftjs.Config{PollWait: 100 * time.Millisecond})
	defer src.Close()
	cfg := src.Config()
	ctx := context.Background()
	for i := range n {
		m := nats.NewMsg(cfg.DeadLetterSubject)
		m.Data = []byte(strconv.Itoa(i))
		m.Header = nats.Header{
			weftjs.HeaderDeadStream:   {cfg.Stream},
			weftjs.HeaderDeadSubject:  {src.Subject()},
			weftjs.HeaderDeadSequence: {strconv.Itoa(i + 1)},
			weftjs.HeaderID:           {strconv.Itoa(i + 1)},
		}
		_, err := js.PublishMsg(ctx, m)
		require.NoError(t, err)
	}
	js2 := connect(t, srv.url())
	var wg sync.WaitGroup
	var mu sync.Mutex
	total := 0
	var errs []error
	for _, jj := range []natsjs.JetStream{js, js2} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			k, err := weftjs.Replay(ctx, jj, cfg, 0)
			mu.Lock()
			total += k
			if err != nil {
				errs = append(errs, err)
			}
			mu.Unlock()
		}()
	}
	wg.Wait()
	require.Empty(t, errs, "a replay failed because the other deleted a record first")
	require.Zero(t, streamMsgs(t, js, cfg.DeadLetterStream))
	require.EqualValues(t, n, streamMsgs(t, js, cfg.Stream), "tasks in the work queue after two concurrent replays of %d records (replays reported %d)", n, total)
	require.Equal(t, n, total, "tasks the replays reported put back")
}
