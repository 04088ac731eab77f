package weftjs_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	natsjs "github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"
	"github.com/weftrt/weft/intake"
	weftjs "github.com/weftrt/weft/jetstream"
	"github.com/weftrt/weft/slots"
)

// The crash test runs worker processes: this test binary, re-executed
// with childEnv set to the path of the log the child writes. The child
// logs, one line each, every task it receives ("R id"), starts ("S id"),
// finishes ("D id", the task's side effect) and gets a confirmed ack for
// ("A id"), writing each line with its own write call, so that a
// SIGKILL loses nothing already logged.
const (
	childEnv    = "WEFT_JS_CRASH_LOG"
	childURLEnv = "WEFT_JS_CRASH_URL"
	crashSlots  = 16
	// crashSettling is the children's MaxSettling: with crashSlots, the
	// most tasks a killed child can hold delivered and unsettled.
	crashSettling = 2 * crashSlots
)

var crashConfig = weftjs.Config{
	Stream:        "CRASH",
	AckWait:       2 * time.Second, // a dead process's tasks come back within 2s
	PollWait:      200 * time.Millisecond,
	MaxAckPending: 1000,
}

// Two worker processes share one stream of 10,000 tasks; one is killed
// with SIGKILL mid-run. The survivor completes every task: none is lost.
// Tasks the dead process had done but not yet acked run again: they are
// counted, and each must be one the dead process held (received and not
// acked) when it died, so there are at most as many as it had in flight.
func TestCrashTwoProcesses(t *testing.T) {
	const n = 10000
	srv := startServer(t)
	js := connect(t, srv.url())
	src := newSource(t, js, crashConfig)
	src.Close()
	publishN(t, js, src.Subject(), 0, n)

	dir := t.TempDir()
	victim := startChild(t, srv.url(), dir+"/victim.log")
	survivor := startChild(t, srv.url(), dir+"/survivor.log")
	// Kill the victim mid-run, once both are well under way.
	eventually(t, 60*time.Second, func() bool {
		v, s := readLog(t, victim.log), readLog(t, survivor.log)
		return len(v["D"]) >= 1000 && len(s["D"]) >= 500 && len(v["D"])+len(s["D"]) >= n/4
	}, "both workers under way")
	require.NoError(t, victim.cmd.Process.Signal(syscall.SIGKILL))
	_ = victim.cmd.Wait()
	v := readLog(t, victim.log)

	var s map[string]map[string]int
	eventually(t, 120*time.Second, func() bool {
		s = readLog(t, survivor.log)
		return len(union(v["D"], s["D"])) == n
	}, "every task done by one process or the other")
	eventually(t, 30*time.Second, func() bool { return streamMsgs(t, js, crashConfig.Stream) == 0 }, "stream drained")
	require.NoError(t, survivor.cmd.Process.Signal(syscall.SIGTERM))
	require.NoError(t, survivor.cmd.Wait(), "survivor's exit; its output:\n%s", survivor.out.String())
	s = readLog(t, survivor.log)

	inFlight := map[string]bool{} // received by the victim, never acked by it
	for id := range v["R"] {
		if v["A"][id] == 0 {
			inFlight[id] = true
		}
	}
	done := union(v["D"], s["D"])
	dups := 0
	for id, k := range done {
		if k > 1 {
			dups += k - 1
			require.True(t, inFlight[id], "task %s ran twice but was not in flight in the dead process", id)
		}
	}
	t.Logf("crash test: tasks %d, completed %d, lost %d, duplicates %d; in flight in the killed process at the kill %d (limit %d slots + %d settling); done by the victim %d, by the survivor %d",
		n, len(done), n-len(done), dups, len(inFlight), crashSlots, crashSettling, len(v["D"]), len(s["D"]))
	require.Len(t, done, n, "lost tasks")
	require.LessOrEqual(t, dups, len(inFlight))
	require.LessOrEqual(t, len(inFlight), crashSlots+crashSettling)
}

type child struct {
	cmd *exec.Cmd
	log string
	out *bytes.Buffer
}

// startChild starts a worker process logging to log, with extraEnv
// ("NAME=value") added to its environment.
func startChild(t *testing.T, url, log string, extraEnv ...string) *child {
	t.Helper()
	c := &child{log: log, out: new(bytes.Buffer)}
	c.cmd = exec.Command(os.Args[0], "-test.run=^$")
	c.cmd.Env = append(append(os.Environ(), childEnv+"="+log, childURLEnv+"="+url), extraEnv...)
	c.cmd.Stdout, c.cmd.Stderr = c.out, c.out
	require.NoError(t, c.cmd.Start())
	t.Cleanup(func() {
		if c.cmd.ProcessState == nil {
			_ = c.cmd.Process.Kill()
			_ = c.cmd.Wait()
		}
	})
	return c
}

// readLog returns, per event (R, S, D, A), how often each task ID appears.
func readLog(t *testing.T, path string) map[string]map[string]int {
	t.Helper()
	out := map[string]map[string]int{"R": {}, "S": {}, "D": {}, "A": {}}
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return out
	}
	require.NoError(t, err)
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		ev, id, ok := strings.Cut(sc.Text(), " ")
		if ok && out[ev] != nil {
			out[ev][id]++
		}
	}
	return out
}

func union(a, b map[string]int) map[string]int {
	u := make(map[string]int, len(a)+len(b))
	for id, k := range a {
		u[id] += k
	}
	for id, k := range b {
		u[id] += k
	}
	return u
}

// childEnd is what a child worker process starts with: the log it
// writes, the SIGTERM it stops on, its connection and source.
type childEnd struct {
	log  *os.File
	term chan os.Signal
	nc   *nats.Conn
	js   natsjs.JetStream
	src  *weftjs.Source
}

// openChildEnd opens the log the parent named, catches SIGTERM, connects
// to the parent's server, and makes a source with cfg.
func openChildEnd(cfg weftjs.Config) (*childEnd, error) {
	c, err := connectChild()
	if err != nil {
		return nil, err
	}
	if err := c.start(cfg); err != nil {
		c.close()
		return nil, err
	}
	return c, nil
}

// start makes c's source with cfg.
func (c *childEnd) start(cfg weftjs.Config) (err error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c.src, err = weftjs.NewSource(ctx, c.js, cfg)
	return err
}

// connectChild is openChildEnd up to the connection.
func connectChild() (*childEnd, error) {
	log, err := os.OpenFile(os.Getenv(childEnv), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	c := &childEnd{log: log, term: make(chan os.Signal, 1)}
	signal.Notify(c.term, syscall.SIGTERM)
	if c.nc, err = weftjs.Connect(os.Getenv(childURLEnv)); err != nil {
		log.Close()
		return nil, err
	}
	if c.js, err = natsjs.New(c.nc); err != nil {
		c.close()
		return nil, err
	}
	return c, nil
}

func (c *childEnd) close() {
	if c.src != nil {
		c.src.Close()
	}
	c.nc.Close()
	c.log.Close()
}

// crashChild is a crash-test worker process: it processes tasks until
// SIGTERM, then shuts down gracefully.
func crashChild() int {
	if os.Getenv(keyedChildEnv) != "" {
		return keyedChild()
	}
	fail := func(err error) int {
		fmt.Fprintln(os.Stderr, "crash child:", err)
		return 1
	}
	c, err := openChildEnd(crashConfig)
	if err != nil {
		return fail(err)
	}
	defer c.close()
	log, term, src := c.log, c.term, c.src
	note := func(ev string, t intake.Task) { _, _ = log.WriteString(ev + " " + string(t.Payload()) + "\n") }
	w, err := intake.New(intake.Config{
		Source:      loggedSource{src, note},
		Supplier:    slots.NewFixed(crashSlots),
		MaxSettling: crashSettling,
		// The side effect (D) happens mid-task, as real tasks' do: a
		// process killed after it and before the ack leaves a task that
		// runs again.
		Handler: func(_ context.Context, t intake.Task) error {
			note("S", t)
			time.Sleep(250 * time.Microsecond)
			note("D", t)
			time.Sleep(250 * time.Microsecond)
			return nil
		},
	})
	if err != nil {
		return fail(err)
	}
	<-term
	sctx, scancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer scancel()
	if err := w.Shutdown(sctx); err != nil {
		return fail(err)
	}
	return 0
}

// loggedSource logs what its source delivers, and the acks confirmed.
type loggedSource struct {
	inner intake.Source
	note  func(ev string, t intake.Task)
}

func (l loggedSource) Poll(ctx context.Context, n int) ([]intake.Task, error) {
	tasks, err := l.inner.Poll(ctx, n)
	for i, t := range tasks {
		l.note("R", t)
		tasks[i] = loggedTask{t, l.note}
	}
	return tasks, err
}

func (l loggedSource) Lease() time.Duration { return l.inner.(intake.Leaser).Lease() }

type loggedTask struct {
	intake.Task
	note func(ev string, t intake.Task)
}

func (t loggedTask) Ack(ctx context.Context) error {
	err := t.Task.Ack(ctx)
	if err == nil {
		t.note("A", t.Task)
	}
	return err
}
