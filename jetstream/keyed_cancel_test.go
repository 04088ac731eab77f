package weftjs_test

import (
	"bytes"
	"context"
	"errors"
	"net"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/require"
	"github.com/weftrt/weft/intake"
	weftjs "github.com/weftrt/weft/jetstream"
)

// gateDialer dials connections whose reads from the server a test can
// hold back: once armed with a marker, the first message whose control
// line (MSG/HMSG, where the reply subject is) holds the marker, and
// everything after it, stays "on the wire" until release.
type gateDialer struct {
	mu   sync.Mutex
	cond *sync.Cond
	// marker arms the gate; hit says a frame with it is held.
	marker []byte
	hit    bool
	conns  []*gateConn
}

func newGateDialer() *gateDialer {
	d := &gateDialer{}
	d.cond = sync.NewCond(&d.mu)
	return d
}

func (d *gateDialer) Dial(network, address string) (net.Conn, error) {
	c, err := net.Dial(network, address)
	if err != nil {
		return nil, err
	}
	g := &gateConn{Conn: c, d: d}
	d.mu.Lock()
	d.conns = append(d.conns, g)
	d.mu.Unlock()
	go g.pump()
	return g, nil
}

// arm holds back the first message whose control line contains marker,
// and all that follows it.
func (d *gateDialer) arm(marker string) {
	d.mu.Lock()
	d.marker, d.hit = []byte(marker), false
	d.mu.Unlock()
}

// held reports whether a frame with the marker is being held back.
func (d *gateDialer) held() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.hit
}

// release lets everything through again.
func (d *gateDialer) release() {
	d.mu.Lock()
	d.marker, d.hit = nil, false
	d.cond.Broadcast()
	d.mu.Unlock()
}

// gateConn reads the server's bytes into buf on its own goroutine (pump),
// and hands nats.go whole protocol lines and messages, up to the held one.
type gateConn struct {
	net.Conn
	d      *gateDialer
	buf    []byte
	ready  int // buf[:ready] may be read
	err    error
	closed bool
}

func (g *gateConn) pump() {
	b := make([]byte, 32*1024)
	for {
		n, err := g.Conn.Read(b)
		g.d.mu.Lock()
		g.buf = append(g.buf, b[:n]...)
		if err != nil {
			g.err = err
		}
		g.d.cond.Broadcast()
		g.d.mu.Unlock()
		if err != nil {
			return
		}
	}
}

// advanceLocked moves ready past the whole frames it may hand over.
func (g *gateConn) advanceLocked() {
	for {
		rest := g.buf[g.ready:]
		eol := bytes.Index(rest, []byte("\r\n"))
		if eol < 0 {
			return
		}
		line := rest[:eol]
		size := eol + 2
		if bytes.HasPrefix(line, []byte("MSG ")) || bytes.HasPrefix(line, []byte("HMSG ")) {
			f := bytes.Fields(line)
			total, err := strconv.Atoi(string(f[len(f)-1]))
			if err != nil {
				panic("gateConn: bad control line " + string(line))
			}
			size += total + 2
			if g.d.marker != nil && bytes.Contains(line, g.d.marker) {
				g.d.hit = true
				g.d.cond.Broadcast()
				return
			}
		}
		if len(rest) < size {
			return
		}
		g.ready += size
	}
}

func (g *gateConn) Read(p []byte) (int, error) {
	g.d.mu.Lock()
	defer g.d.mu.Unlock()
	for {
		if g.ready == 0 && !g.d.hit {
			g.advanceLocked()
		}
		if g.ready > 0 {
			n := copy(p, g.buf[:g.ready])
			g.buf = g.buf[n:]
			g.ready -= n
			return n, nil
		}
		if g.err != nil && !g.d.hit {
			if len(g.buf) > 0 { // a partial frame: hand it over as it is
				n := copy(p, g.buf)
				g.buf = g.buf[n:]
				return n, nil
			}
			return 0, g.err
		}
		if g.closed {
			return 0, net.ErrClosed
		}
		g.d.cond.Wait()
	}
}

func (g *gateConn) Close() error {
	g.d.mu.Lock()
	g.closed = true
	g.d.cond.Broadcast()
	g.d.mu.Unlock()
	return g.Conn.Close()
}

// pollOne polls src for one task until one comes, each poll bounded.
func pollOne(t *testing.T, src *weftjs.Source) intake.Task {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		tasks, err := src.Poll(ctx, 1)
		cancel()
		if len(tasks) > 0 {
			require.Len(t, tasks, 1)
			return tasks[0]
		}
		require.NoError(t, err)
	}
	t.Fatal("no task polled")
	return nil
}

// settleTaken tells the source that the worker took the task in (as the
// worker does after every poll), and acks it.
func ackTask(t *testing.T, task intake.Task) {
	t.Helper()
	task.(intake.OrderKeeper).Taken()
	require.NoError(t, task.Ack(context.Background()))
}

// A keyed poll cancelled (a Pause, a Shutdown) while the server's answer
// is on its way must not lose that answer: the message would come back
// only after AckWait, and the partition's next pull would meanwhile hand
// out the key's later tasks, so that they run before it. Here the server
// delivers task A of key K to a poll whose answer the test holds "on the
// wire"; the poll is cancelled, then the answer let through. The next
// poll of the partition must bring A again, before B.
func TestKeyedPollCancelledWithAnswerOnTheWire(t *testing.T) {
	srv := startServer(t)
	gate := newGateDialer()
	js := connect(t, srv.url(), nats.SetCustomDialer(gate))
	cfg := weftjs.Config{
		Stream: "KEYEDCANCEL", Partitions: 1, AckWait: time.Minute,
		PollWait: 100 * time.Millisecond, MemberTTL: time.Second,
	}
	src := newSource(t, js, cfg)
	defer src.Close()
	eventually(t, 10*time.Second, func() bool { return len(src.OwnedPartitions()) == 1 }, "the partition assigned")

	// A first task, so that the source holds the partition's pin, as a
	// worker does once it has pulled a partition.
	ctx := context.Background()
	require.NoError(t, src.PublishKey(ctx, "K", []byte("task-0")))
	first := pollOne(t, src)
	require.Equal(t, "task-0", string(first.Payload()))
	ackTask(t, first)

	require.NoError(t, src.PublishKey(ctx, "K", []byte("task-A")))
	require.NoError(t, src.PublishKey(ctx, "K", []byte("task-B")))

	// Hold back the first message of the partition's consumer.
	gate.arm("$JS.ACK.KEYEDCANCEL.weft_p0.")
	res := pollCancelledOnTheWire(t, src, gate)
	require.True(t, errors.Is(res.err, context.Canceled), "poll error %v", res.err)
	// The worker returns what a cancelled poll brought, unrun.
	for _, task := range res.tasks {
		require.NoError(t, task.(intake.HandBacker).HandBack(ctx))
		task.(intake.OrderKeeper).Taken()
	}

	next := pollOne(t, src)
	require.Equal(t, "task-A", string(next.Payload()),
		"key K's task B came before task A, which a cancelled poll lost on the wire (it comes back only after AckWait)")
	ackTask(t, next)
	last := pollOne(t, src)
	require.Equal(t, "task-B", string(last.Payload()))
	ackTask(t, last)
}

// A keyed task handed back unrun is Nak'd before its partition is pulled
// again, and the server must have taken the Nak in before it answers that
// pull: the server reads a consumer's acks and its pull requests on two
// goroutines, so a Nak merely sent before the pull may be taken in after
// it, and the pull then brings the key's next task first. Each round
// here hands back task A of a key and polls again: A must come back
// before B.
func TestKeyedHandBackComesBackFirst(t *testing.T) {
	const rounds = 150
	srv := startServer(t)
	js := connect(t, srv.url())
	cfg := weftjs.Config{
		Stream: "KEYEDNAK", Partitions: 1, AckWait: time.Minute,
		PollWait: 100 * time.Millisecond, MemberTTL: time.Second,
	}
	src := newSource(t, js, cfg)
	defer src.Close()
	eventually(t, 10*time.Second, func() bool { return len(src.OwnedPartitions()) == 1 }, "the partition assigned")
	ctx := context.Background()
	var overtaken []int
	for i := range rounds {
		a, b := "A"+strconv.Itoa(i), "B"+strconv.Itoa(i)
		require.NoError(t, src.PublishKey(ctx, "K", []byte(a)))
		require.NoError(t, src.PublishKey(ctx, "K", []byte(b)))
		got := pollOne(t, src)
		require.Equal(t, a, string(got.Payload()))
		require.NoError(t, got.(intake.HandBacker).HandBack(ctx))
		got.(intake.OrderKeeper).Taken()
		var order []string
		for range 2 {
			task := pollOne(t, src)
			order = append(order, string(task.Payload()))
			ackTask(t, task)
		}
		if order[0] != a {
			overtaken = append(overtaken, i)
		}
		require.ElementsMatch(t, []string{a, b}, order)
	}
	require.Empty(t, overtaken, "rounds (of %d) where a handed-back task came back after its key's next one", rounds)
}

// pollResult is what a Poll returned.
type pollResult struct {
	tasks []intake.Task
	err   error
}

// pollCancelledOnTheWire polls src once, with the answer held back by
// gate (armed by the caller), cancels the poll while the answer is held,
// then lets the answer through, and returns what the poll returned.
func pollCancelledOnTheWire(t *testing.T, src *weftjs.Source, gate *gateDialer) pollResult {
	t.Helper()
	pctx, cancel := context.WithCancel(context.Background())
	done := make(chan pollResult, 1)
	go func() {
		tasks, err := src.Poll(pctx, 1)
		done <- pollResult{tasks, err}
	}()
	eventually(t, 10*time.Second, gate.held, "the server's answer held on the wire")
	cancel()
	select {
	case res := <-done: // a poll that dropped its answer
		gate.release()
		return res
	case <-time.After(200 * time.Millisecond):
		// A poll that waits for the rest of its answer (as it should):
		// let it come. The pause only gives a poll that drops its answer
		// the time to return first; a right one passes either way.
		gate.release()
		return <-done
	}
}
