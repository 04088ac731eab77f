package weftjs_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/weftrt/weft/intake"
	weftjs "github.com/weftrt/weft/jetstream"
	"github.com/weftrt/weft/slots"
)

// rawPublish publishes payload with a raw header block, as a client
// other than nats.go v1.55 may (the server does not check header keys),
// and waits for the server to have processed it (PING/PONG).
func rawPublish(t *testing.T, url, subject, hdrLines, payload string) {
	t.Helper()
	conn, err := net.Dial("tcp", strings.TrimPrefix(url, "nats://"))
	require.NoError(t, err)
	defer conn.Close()
	r := bufio.NewReader(conn)
	_, err = r.ReadString('\n') // INFO
	require.NoError(t, err)
	hdr := "NATS/1.0\r\n" + hdrLines + "\r\n"
	fmt.Fprintf(conn, "CONNECT {\"headers\":true,\"verbose\":false,\"pedantic\":false}\r\n")
	fmt.Fprintf(conn, "HPUB %s %d %d\r\n%s%s\r\nPING\r\n", subject, len(hdr), len(hdr)+len(payload), hdr, payload)
	for {
		line, err := r.ReadString('\n')
		require.NoError(t, err)
		if strings.HasPrefix(line, "-ERR") {
			t.Fatalf("server: %s", line)
		}
		if strings.HasPrefix(line, "PONG") {
			return
		}
	}
}

// A producer (another client library) puts a header whose key nats.go
// v1.55 refuses to publish ("X-Trace/Id") on a task. The message is a
// task like any other; but a copy of it (dead-letter record, hand-back)
// cannot be published with that key, so Terminate fails for ever and
// the poison task is never dead-lettered (it stays in the work queue
// after MaxDeliver).
func TestOddHeaderKeyTaskIsDeadLettered(t *testing.T) {
	srv := startServer(t)
	js := connect(t, srv.url())
	src := newSource(t, js, weftjs.Config{PollWait: 100 * time.Millisecond, AckWait: time.Second, MaxDeliver: 3})
	defer src.Close()
	rawPublish(t, srv.url(), src.Subject(), "X-Trace/Id: abc\r\nTrace: 1\r\n", "poison")

	var mu sync.Mutex
	var deadErrs []error
	w := newWorker(t, intake.Config{
		Source:        src,
		Supplier:      slots.NewFixed(1),
		MaxDeliveries: 2,
		Backoff:       intake.Exponential(time.Millisecond, time.Millisecond),
		OnError: func(err error) {
			if errors.Is(err, weftjs.ErrDeadLetter) {
				mu.Lock()
				deadErrs = append(deadErrs, err)
				mu.Unlock()
			}
		},
		Handler: func(context.Context, intake.Task) error {
			return intake.Poison(errors.New("poison"))
		},
	})
	eventually(t, 10*time.Second, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return w.Stats().Terminated == 1 || len(deadErrs) > 0
	}, "terminated or refused")
	require.NoError(t, w.Shutdown(context.Background()))
	mu.Lock()
	require.Empty(t, deadErrs, "the dead-letter copy could not be stored")
	mu.Unlock()
	require.EqualValues(t, 1, w.Stats().Terminated)
	require.EqualValues(t, 1, streamMsgs(t, js, src.Config().DeadLetterStream))
	require.Zero(t, streamMsgs(t, js, src.Config().Stream))
}
