package weftjs_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/require"
	"github.com/weftrt/weft/intake"
	weftjs "github.com/weftrt/weft/jetstream"
	"github.com/weftrt/weft/slots"
)

// An unkeyed poll whose connection drops after the server delivered
// tasks to it, before the status that ends the answer. The poll ends
// with the connection (its request is lost with it), and what it brought
// was returned with the error: the worker handed it back, and a hand-back
// while the connection is down fails (no reconnect buffer) and falls back
// to a Nak, which fails too. So the tasks came back after AckWait with
// their never-run delivery counted: Deliveries() 2 on their first run,
// counted as Redelivered. They must run instead, with Deliveries() 1:
// run, they are settled once the connection is back, and a task whose
// ack is lost after all ran.
func TestPollCutByConnectionDropCountsNoDelivery(t *testing.T) {
	srv := startServer(t)
	px := newCutProxy(t, srv.url())
	defer px.up() // before the worker's cleanup, which waits for handlers that wait for the connection
	js := connect(t, px.url())
	src := newSource(t, js, weftjs.Config{Stream: "CUT", PollWait: 5 * time.Second, AckWait: 5 * time.Second, OnError: func(error) {}})
	defer src.Close()
	// Published before the first poll, so that it brings them together
	// (published while it waits, the first would end it); fewer than it
	// asks for, so that its answer ends with a status.
	const n = 3
	publishN(t, js, src.Subject(), 0, n)
	px.arm()

	// Closed once the client has connected again (the first CONNECTED
	// status from here on is the reconnect: the proxy refuses one until
	// up), for handlers to wait on rather than poll.
	reconnected := make(chan struct{})
	statuses := js.Conn().StatusChanged(nats.CONNECTED)
	go func() {
		<-statuses
		close(reconnected)
	}()
	var mu sync.Mutex
	first := map[string]int{} // the Deliveries of each task's first run
	w := newWorker(t, intake.Config{
		Source:      src,
		Supplier:    slots.NewFixed(8),
		MinPollers:  1,
		MaxPollers:  1,
		PollBackoff: func(int) time.Duration { return 20 * time.Millisecond },
		OnError:     func(error) {},
		Handler: func(_ context.Context, task intake.Task) error {
			mu.Lock()
			if _, ok := first[string(task.Payload())]; !ok {
				first[string(task.Payload())] = task.Deliveries()
			}
			mu.Unlock()
			// Settled on a live connection, the task is not delivered
			// again.
			if !js.Conn().IsConnected() {
				<-reconnected
			}
			return nil
		},
	})
	select {
	case <-px.cut:
	case <-time.After(10 * time.Second):
		t.Fatal("the poll's answer never reached the proxy")
	}
	// The connection stays down until the worker has dealt with the
	// cut poll's tasks, run or handed back.
	eventually(t, 10*time.Second, func() bool {
		st := w.Stats()
		return st.Started+st.HandedBack >= n
	}, "the cut poll's tasks taken in")
	px.up()
	eventually(t, 30*time.Second, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(first) == n && w.Stats().Acked >= n
	}, "every task run and acked")
	require.NoError(t, w.Shutdown(context.Background()))
	st := w.Stats()
	t.Logf("first runs' deliveries: %v; received %d, redelivered %d, handed back %d", first, st.Received, st.Redelivered, st.HandedBack)
	for p, d := range first {
		require.Equal(t, 1, d, "task %s: Deliveries on its first run", p)
	}
	require.Zero(t, st.Redelivered)
}

// cutProxy forwards a client's connections to a server. Armed, it cuts
// the connection just before the status that ends a pull request's
// answer with messages in it, so that the client has the messages and
// not the end; it then refuses connections until up.
type cutProxy struct {
	t      *testing.T
	l      net.Listener
	server string
	armed  atomic.Bool
	down   atomic.Bool
	cut    chan struct{}
	once   sync.Once
	wg     sync.WaitGroup

	mu    sync.Mutex
	conns []net.Conn
}

func newCutProxy(t *testing.T, serverURL string) *cutProxy {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	px := &cutProxy{t: t, l: l, server: serverURL[len("nats://"):], cut: make(chan struct{})}
	px.wg.Add(1)
	go px.accept()
	t.Cleanup(func() {
		_ = l.Close()
		px.closeAll()
		px.wg.Wait()
	})
	return px
}

func (px *cutProxy) url() string { return "nats://" + px.l.Addr().String() }

func (px *cutProxy) arm() { px.armed.Store(true) }

func (px *cutProxy) up() { px.down.Store(false) }

func (px *cutProxy) accept() {
	defer px.wg.Done()
	for {
		c, err := px.l.Accept()
		if err != nil {
			return
		}
		if px.down.Load() {
			_ = c.Close()
			continue
		}
		s, err := net.Dial("tcp", px.server)
		if err != nil {
			_ = c.Close()
			continue
		}
		px.mu.Lock()
		px.conns = append(px.conns, c, s)
		px.mu.Unlock()
		px.wg.Add(2)
		go func() { defer px.wg.Done(); _, _ = io.Copy(s, c); _ = s.Close() }()
		go func() { defer px.wg.Done(); px.toClient(c, s); _ = c.Close() }()
	}
}

// toClient forwards what the server sends. A status line of a pull's end
// ("NATS/1.0 404", "408", "409") after a stream message (its reply is an
// ack subject) is where an armed proxy cuts: it forwards up to the HMSG
// line the status is in, and closes everything. The bytes already
// forwarded are kept a while (tail), for a marker split between reads.
func (px *cutProxy) toClient(c, s net.Conn) {
	buf := make([]byte, 64<<10)
	var tail []byte
	sawMsg := false
	for {
		k, err := s.Read(buf)
		if k > 0 {
			chunk := buf[:k]
			if px.armed.Load() {
				data := append(append([]byte(nil), tail...), chunk...)
				from := 0
				if sawMsg {
					// The tail was searched with the last read: only a
					// status line split between the two reads can start
					// in it. (This was len(data), which searched nothing,
					// so a status that came in a later read than the
					// messages was never cut: the test then failed, now
					// and then, with "never reached the proxy".)
					from = max(len(tail)-len(endMarker)+1, 0)
				} else if i := bytes.Index(data, []byte("$JS.ACK.")); i >= 0 {
					sawMsg, from = true, i
				}
				if sawMsg {
					if i := bytes.Index(data[from:], endMarker); i >= 0 {
						start := bytes.LastIndex(data[:from+i], []byte("HMSG "))
						if keep := start - len(tail); keep > 0 {
							_, _ = c.Write(chunk[:keep])
						}
						px.armed.Store(false)
						px.down.Store(true)
						px.closeAll()
						px.once.Do(func() { close(px.cut) })
						return
					}
				}
				tail = data[max(len(data)-64, 0):]
			}
			if _, werr := c.Write(chunk); werr != nil {
				return
			}
		}
		if err != nil {
			if !errors.Is(err, io.EOF) && !errors.Is(err, net.ErrClosed) {
				px.t.Logf("proxy: %v", err)
			}
			return
		}
	}
}

// endMarker starts the status line that ends a pull's answer.
var endMarker = []byte("NATS/1.0 40")

func (px *cutProxy) closeAll() {
	px.mu.Lock()
	defer px.mu.Unlock()
	for _, c := range px.conns {
		_ = c.Close()
	}
	px.conns = nil
}
