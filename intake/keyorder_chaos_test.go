package intake_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/weftrt/weft/intake"
	"github.com/weftrt/weft/slots"
)

// streamSource hands out keyed tasks in stream order, several of a key at
// once, as a JetStream partition does, and keeps nothing back of its own:
// a task returned unrun takes its place in the stream again, and a poll
// answers with the earliest tasks not out. It keeps order across pollers
// (intake.OrderKeeper): a poll answers nothing while a task of the last
// answer is not yet Taken. Runs are checked against the stream: a task
// must start only once every earlier task of its key has run, and no
// other task of its key runs meanwhile.
type streamSource struct {
	mu       sync.Mutex
	ready    []int // stream positions not out, ascending
	keys     int
	acked    []bool
	ran      []bool
	running  map[int]bool // by key
	untaken  int
	problems []string
}

func newStreamSource(n, keys int) *streamSource {
	s := &streamSource{keys: keys, acked: make([]bool, n), ran: make([]bool, n), running: make(map[int]bool)}
	for i := range n {
		s.ready = append(s.ready, i)
	}
	return s
}

func (s *streamSource) Poll(ctx context.Context, n int) ([]intake.Task, error) {
	s.mu.Lock()
	var tasks []intake.Task
	if s.untaken == 0 {
		n = min(n, len(s.ready))
		for _, pos := range s.ready[:n] {
			tasks = append(tasks, &streamTask{src: s, pos: pos})
		}
		s.ready = slices.Delete(s.ready, 0, n)
		s.untaken = n
	}
	s.mu.Unlock()
	// Answer a little later, now and then: a task handed back meanwhile
	// is behind the ones answered.
	for range rand.IntN(40) {
		runtime.Gosched()
	}
	return tasks, ctx.Err()
}

// started checks that every task of pos's key before it has run, and
// that none runs now.
func (s *streamSource) started(pos int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.running[pos%s.keys] {
		s.problems = append(s.problems, fmt.Sprintf("task %d started while another of its key ran", pos))
	}
	s.running[pos%s.keys] = true
	for p := pos - s.keys; p >= 0; p -= s.keys {
		if !s.ran[p] {
			s.problems = append(s.problems, fmt.Sprintf("task %d started before task %d of its key ran", pos, p))
			return
		}
	}
}

func (s *streamSource) ended(pos int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.running[pos%s.keys] = false
	s.ran[pos] = true
}

func (s *streamSource) settled(pos int, ack bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !ack {
		i, _ := slices.BinarySearch(s.ready, pos)
		s.ready = slices.Insert(s.ready, i, pos)
		return
	}
	if s.acked[pos] {
		s.problems = append(s.problems, fmt.Sprintf("task %d acked twice", pos))
	}
	s.acked[pos] = true
}

func (s *streamSource) done() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return !slices.Contains(s.acked, false)
}

type streamTask struct {
	src *streamSource
	pos int
}

func (t *streamTask) ID() string                       { return strconv.Itoa(t.pos) }
func (t *streamTask) Payload() []byte                  { return nil }
func (t *streamTask) Deliveries() int                  { return 1 }
func (t *streamTask) Key() string                      { return strconv.Itoa(t.pos % t.src.keys) }
func (t *streamTask) InProgress(context.Context) error { return nil }
func (t *streamTask) Ack(context.Context) error        { t.src.settled(t.pos, true); return nil }
func (t *streamTask) Nack(context.Context, time.Duration) error {
	for range rand.IntN(40) { // a round trip: polls may begin meanwhile
		runtime.Gosched()
	}
	t.src.settled(t.pos, false)
	return nil
}

func (t *streamTask) Terminate(context.Context, string) error {
	t.src.mu.Lock()
	defer t.src.mu.Unlock()
	t.src.problems = append(t.src.problems, "task "+t.ID()+" terminated")
	return nil
}

func (t *streamTask) Taken() {
	t.src.mu.Lock()
	defer t.src.mu.Unlock()
	t.src.untaken--
}

// Pauses and resumes at random, against a source that hands out several
// tasks of a key at once and takes returned ones back into their place:
// every key's tasks still run one at a time, in stream order, each once.
// A task handed back unrun goes back behind the tasks a poll already
// answered, so this needs the key lines to hand back in order and the
// keys' fences (keyLines) to stop what older polls bring.
func TestKeyOrderUnderPauseChaos(t *testing.T) {
	n, keys := 3000, 3
	if testing.Short() {
		n = 1000
	}
	src := newStreamSource(n, keys)
	w := newWorker(t, intake.Config{
		Source:           src,
		Supplier:         slots.NewFixed(8),
		MinPollers:       1,
		MaxPollers:       3,
		EmptyPollBackoff: intake.Exponential(10*time.Microsecond, 200*time.Microsecond),
		OnError:          func(error) {},
		Handler: func(_ context.Context, task intake.Task) error {
			st := task.(*streamTask)
			st.src.started(st.pos)
			for range rand.IntN(20) {
				runtime.Gosched()
			}
			st.src.ended(st.pos)
			return nil
		},
	})
	stop := make(chan struct{})
	waitChaos := pauseAtRandom(w, 2, 500*time.Microsecond, stop)
	eventually(t, 60*time.Second, src.done, "every task acked")
	close(stop)
	waitChaos()
	require.NoError(t, w.Shutdown(context.Background()))
	src.mu.Lock()
	defer src.mu.Unlock()
	require.Empty(t, src.problems)
	s := w.Stats()
	t.Logf("%d tasks over %d keys: started %d, handed back %d, polls %d", n, keys, s.Started, s.HandedBack, s.Polls)
}
