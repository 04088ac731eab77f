package weftjs_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/weftrt/weft/intake"
	weftjs "github.com/weftrt/weft/jetstream"
	"github.com/weftrt/weft/slots"
)

// keyedChildEnv makes a re-executed test binary a keyed worker (see
// keyedChild); childEnv names its log and childURLEnv its server, as for
// the crash test.
const keyedChildEnv = "WEFT_JS_KEYED_CHILD"

// keyedConfig is the keyed workers' stream: 8 partitions; a dead
// worker's entry expires after a second and its pins after three, when
// its tasks are due again too.
var keyedConfig = weftjs.Config{
	Stream:     "KEYED",
	Partitions: 8,
	AckWait:    3 * time.Second,
	PinnedTTL:  3 * time.Second,
	MemberTTL:  time.Second,
	PollWait:   200 * time.Millisecond,
}

// Three worker processes share 8 partitions of 10,000 keyed tasks over
// 100 keys; one is killed with SIGKILL mid-run, and a fourth joins once
// the survivors have taken its partitions over. Asserted: no task is
// lost; each key's tasks complete in publish order, except redelivered
// ones (counted); no key runs on two workers at once outside the window
// the docs allow (from a kill to PinnedTTL after it; none is expected, a
// dead process runs nothing); and after the join the partitions are
// spread within one of even. Nothing waits on time: every step waits for
// what the logs say.
func TestKeyedWorkersCrashAndJoin(t *testing.T) {
	const n, keys = 10000, 100
	srv := startServer(t)
	js := connect(t, srv.url())
	src := newSource(t, js, keyedConfig)
	src.Close()
	dir := t.TempDir()
	workers := []*child{
		startKeyedChild(t, srv.url(), dir+"/w0.log"),
		startKeyedChild(t, srv.url(), dir+"/w1.log"),
		startKeyedChild(t, srv.url(), dir+"/w2.log"),
	}
	eventually(t, 30*time.Second, func() bool { return spreadEven(t, workers) }, "the partitions spread over the three workers")
	// The first half of each key's tasks, then the victim is killed
	// mid-run.
	publishKeyedRange(t, js, src.KeyedPrefix(), 0, n/2, keys)
	victim := workers[0]
	eventually(t, 60*time.Second, func() bool {
		return len(readKeyedLog(t, victim.log).done) >= 300 && doneCount(t, workers) >= n/5
	}, "the workers under way")
	require.NoError(t, victim.cmd.Process.Signal(syscall.SIGKILL))
	_ = victim.cmd.Wait()
	killed := time.Now().UnixNano()
	live := workers[1:]
	eventually(t, 30*time.Second, func() bool { return spreadEven(t, live) }, "the survivors taking the dead worker's partitions")
	workers = append(workers, startKeyedChild(t, srv.url(), dir+"/w3.log"))
	live = append(live, workers[3])
	eventually(t, 30*time.Second, func() bool { return spreadEven(t, live) }, "the partitions spread within one of even after the join")
	publishKeyedRange(t, js, src.KeyedPrefix(), n/2, n, keys)

	eventually(t, 120*time.Second, func() bool { return len(allDone(t, workers)) == n }, "every task done")
	eventually(t, 30*time.Second, func() bool { return streamMsgs(t, js, keyedConfig.Stream) == 0 }, "stream drained")
	for _, w := range live {
		require.NoError(t, w.cmd.Process.Signal(syscall.SIGTERM))
		require.NoError(t, w.cmd.Wait(), "worker's exit; its output:\n%s", w.out.String())
	}

	// Order: a key's first deliveries complete in publish order.
	type event struct {
		key     string
		seq     int
		deliv   int
		at      int64
		worker  int
		started int64
	}
	var events []event
	running := map[string][]event{} // started and never done: the victim's, at the kill
	for wi, w := range workers {
		l := readKeyedLog(t, w.log)
		for _, e := range l.done {
			events = append(events, event{e.key, e.seq, e.deliv, e.at, wi, e.started})
		}
		for _, e := range l.open {
			running[e.key] = append(running[e.key], event{e.key, e.seq, e.deliv, killed, wi, e.started})
		}
	}
	sort.Slice(events, func(i, j int) bool { return events[i].at < events[j].at })
	maxSeq := map[string]int{}
	redelivered, outOfOrder, redeliveredOutOfOrder := 0, 0, 0
	for _, e := range events {
		m, seen := maxSeq[e.key]
		if e.deliv > 1 {
			redelivered++
			if seen && e.seq < m {
				redeliveredOutOfOrder++
			}
		} else if seen && e.seq < m {
			outOfOrder++
			t.Errorf("key %q: task %d (first delivery) completed after task %d", e.key, e.seq, m)
		}
		if !seen || e.seq > m {
			maxSeq[e.key] = e.seq
		}
	}
	// Overlap: two workers running one key at once.
	byKey := map[string][]event{}
	for _, e := range events {
		byKey[e.key] = append(byKey[e.key], e)
	}
	window := keyedConfig.PinnedTTL.Nanoseconds()
	overlaps, outside := 0, 0
	for key, es := range byKey {
		es = append(es, running[key]...)
		for i := range es {
			for j := i + 1; j < len(es); j++ {
				a, b := es[i], es[j]
				if a.worker == b.worker || a.at <= b.started || b.at <= a.started {
					continue
				}
				overlaps++
				if lo := max(a.started, b.started); lo < killed || lo > killed+window {
					outside++
					t.Errorf("key %q: tasks %d (worker %d) and %d (worker %d) ran at once, outside the window after the kill", key, a.seq, a.worker, b.seq, b.worker)
				}
			}
		}
	}
	done := allDone(t, workers)
	t.Logf("keyed crash test: tasks %d, completed %d, lost %d; redelivered runs %d (out of order %d); first deliveries out of order %d; overlaps %d (outside the window %d)",
		n, len(done), n-len(done), redelivered, redeliveredOutOfOrder, outOfOrder, overlaps, outside)
	require.Len(t, done, n, "lost tasks")
}

func startKeyedChild(t *testing.T, url, log string) *child {
	t.Helper()
	return startChild(t, url, log, keyedChildEnv+"=1")
}

type keyedRun struct {
	key        string
	seq, deliv int
	started    int64
	at         int64 // when it completed
}

type keyedLog struct {
	parts []int // the latest assignment
	done  []keyedRun
	open  []keyedRun // started, not completed
}

// readKeyedLog reads a keyed worker's log: "P 0,3,5" (its partitions),
// "S key seq deliveries ns" and "D key seq deliveries ns" (a task's start
// and completion). Keys are logged quoted.
func readKeyedLog(t *testing.T, path string) keyedLog {
	t.Helper()
	var l keyedLog
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return l
	}
	require.NoError(t, err)
	defer f.Close()
	started := map[[2]string]keyedRun{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if rest, ok := strings.CutPrefix(line, "P "); ok {
			l.parts = l.parts[:0]
			for _, f := range strings.Split(rest, ",") {
				if i, err := strconv.Atoi(f); err == nil {
					l.parts = append(l.parts, i)
				}
			}
			continue
		}
		var ev, key string
		var r keyedRun
		if _, err := fmt.Sscanf(line, "%s %q %d %d %d", &ev, &key, &r.seq, &r.deliv, &r.at); err != nil {
			continue // a line cut by the kill
		}
		r.key = key
		id := [2]string{key, strconv.Itoa(r.seq)}
		switch ev {
		case "S":
			r.started = r.at
			started[id] = r
		case "D":
			r.started = started[id].started
			delete(started, id)
			l.done = append(l.done, r)
		}
	}
	for _, r := range started {
		l.open = append(l.open, r)
	}
	return l
}

// spreadEven reports whether the workers' latest assignments cover the
// partitions once each, every worker within one of even.
func spreadEven(t *testing.T, ws []*child) bool {
	var all []int
	lo, hi := keyedConfig.Partitions, 0
	for _, w := range ws {
		p := readKeyedLog(t, w.log).parts
		all = append(all, p...)
		lo, hi = min(lo, len(p)), max(hi, len(p))
	}
	slices.Sort(all)
	return len(all) == keyedConfig.Partitions && slices.Equal(slices.Compact(all), seq(keyedConfig.Partitions)) && hi-lo <= 1
}

func seq(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}

func doneCount(t *testing.T, ws []*child) int {
	n := 0
	for _, w := range ws {
		n += len(readKeyedLog(t, w.log).done)
	}
	return n
}

// allDone returns the tasks completed at least once.
func allDone(t *testing.T, ws []*child) map[[2]string]bool {
	done := map[[2]string]bool{}
	for _, w := range ws {
		for _, r := range readKeyedLog(t, w.log).done {
			done[[2]string{r.key, strconv.Itoa(r.seq)}] = true
		}
	}
	return done
}

// keyedChild is a keyed worker process: it runs tasks until SIGTERM,
// logging its partitions and each task's start and completion, each line
// with one write.
func keyedChild() int {
	fail := func(err error) int {
		fmt.Fprintln(os.Stderr, "keyed child:", err)
		return 1
	}
	c, err := connectChild()
	if err != nil {
		return fail(err)
	}
	defer c.close()
	log, term := c.log, c.term
	cfg := keyedConfig
	cfg.OnPartitions = func(owned []int) {
		s := make([]string, len(owned))
		for i, p := range owned {
			s[i] = strconv.Itoa(p)
		}
		_, _ = log.WriteString("P " + strings.Join(s, ",") + "\n")
	}
	if err := c.start(cfg); err != nil {
		return fail(err)
	}
	src := c.src
	note := func(ev string, t intake.Task) {
		key, seq, _ := strings.Cut(string(t.Payload()), "/")
		_, _ = fmt.Fprintf(log, "%s %q %s %d %d\n", ev, key, seq, t.Deliveries(), time.Now().UnixNano())
	}
	rctx, stop := context.WithCancel(context.Background())
	go func() { <-term; stop() }()
	err = weftjs.Run(rctx, src, intake.Config{
		Supplier: slots.NewFixed(16),
		Handler: func(_ context.Context, t intake.Task) error {
			note("S", t)
			for range 40 { // the task's work, between its start and its side effect
				hashWork(t.Payload())
			}
			note("D", t)
			return nil
		},
	}, 20*time.Second)
	if err != nil {
		return fail(err)
	}
	return 0
}
