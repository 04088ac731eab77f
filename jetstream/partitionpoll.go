package weftjs

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/weftrt/weft/intake"
)

// wakeLocked wakes the polls waiting for a partition to pull.
func (k *keyed) wakeLocked() {
	close(k.changed)
	k.changed = make(chan struct{})
}

// take returns the next partition a poll may pull, after from in the
// sweep, marking it busy, and the position to go on from; nil once the
// sweep is over.
func (k *keyed) take(from, left int, patient bool) (*partition, int, int) {
	now := time.Now()
	k.mu.Lock()
	defer k.mu.Unlock()
	for ; left > 0; left-- {
		p := k.parts[from%len(k.parts)]
		from++
		skip := !patient && !p.drainedAt.IsZero() && now.Sub(p.drainedAt) < p.skipFor()
		if p.owned && !p.busy && len(p.returned) == 0 && p.naking == 0 && !skip && !now.Before(p.throttledUntil) {
			p.busy = true
			return p, from, left - 1
		}
	}
	return nil, from, 0
}

// poll sweeps the partitions this worker owns (and the unkeyed
// consumer), asking each in turn for what is left of n, until it has
// tasks or PollWait has passed.
func (k *keyed) poll(ctx context.Context, n int) ([]intake.Task, error) {
	deadline := time.Now().Add(k.s.cfg.PollWait)
	var tasks []intake.Task
	for patient := false; ; patient = true {
		k.mu.Lock()
		from := k.next
		k.next++
		changed := k.changed
		k.mu.Unlock()
		left := len(k.parts)
		pulled := false
		var p *partition
		for len(tasks) < n {
			if p, from, left = k.take(from, left, patient); p == nil {
				break
			}
			pulled = true
			// The first sweep asks without waiting where the server can
			// answer at once (the unkeyed consumer, a partition this
			// worker holds the pin of): a loaded partition's tasks then
			// never wait behind an empty one's expiry. A request without a
			// pin that finds messages pinned to another client would wait
			// for them, so it always expires.
			//
			// The server answers at once only while the consumer is below
			// MaxAckPending: a request for more than it may deliver gets
			// what it may, and is then held, unanswered, until a task is
			// settled. So such a request asks for no more than the room
			// this worker's own tasks leave, and none is sent while the
			// consumer is known to be full.
			wait, want := sweepWait, n-len(tasks)
			if !patient && (p.index < 0 || p.puller.getPin() != "") {
				if room := k.room(p); room > 0 {
					wait, want = 0, min(want, room)
				}
			}
			msgs, err := p.puller.pull(ctx, want, wait)
			tasks = append(tasks, k.admit(p, msgs, err, want)...)
			switch {
			case err == nil, errors.Is(err, errComeBackLater), errors.Is(err, errPinLost):
				continue
			case isRequestOver(err):
				var se *statusError
				if errors.As(err, &se) && strings.Contains(se.description, "Consumer Deleted") {
					k.unbind()
				}
				continue
			case isNoResponders(err):
				// No consumer answered: it was deleted (or its stream made
				// anew) while no pull of it was in flight, so no 409 told.
				// Bind again, making it again, before the next poll, or
				// the partition's tasks would never be delivered while
				// this worker lives.
				k.unbind()
			}
			return tasks, err
		}
		if len(tasks) > 0 || !time.Now().Before(deadline) {
			return tasks, nil
		}
		if !pulled { // nothing to pull: wait for a change
			wake := deadline
			if at := k.throttledTill(); !at.IsZero() && at.Before(wake) {
				wake = at
			}
			t := time.NewTimer(time.Until(wake))
			select {
			case <-changed:
			case <-t.C:
			case <-ctx.Done():
				t.Stop()
				return nil, ctx.Err()
			}
			t.Stop()
		}
	}
}

// throttledTill returns the end of the earliest throttle pause still
// running on a consumer this worker owns, zero if none: nothing else
// tells a poll waiting for a consumer to pull that one may be pulled
// again.
func (k *keyed) throttledTill() time.Time {
	now := time.Now()
	var at time.Time
	k.mu.Lock()
	defer k.mu.Unlock()
	for _, p := range k.parts {
		if p.owned && p.throttledUntil.After(now) && (at.IsZero() || p.throttledUntil.Before(at)) {
			at = p.throttledUntil
		}
	}
	return at
}

// room returns how many more tasks p's consumer may deliver before
// MaxAckPending, as far as this worker knows: none while it is known to
// be full.
func (k *keyed) room(p *partition) int {
	k.mu.Lock()
	defer k.mu.Unlock()
	if p.full {
		return 0
	}
	return max(k.s.cfg.MaxAckPending-p.held, 0)
}

// admit makes tasks of the messages a pull on p brought, counts them as
// held, and ends the pull.
func (k *keyed) admit(p *partition, msgs []*nats.Msg, pullErr error, asked int) []intake.Task {
	tasks := make([]intake.Task, 0, len(msgs))
	drained := len(msgs) == 0 && pullErr == nil
	var left uint64 // the messages pending after the last one delivered
	for _, m := range msgs {
		t, err := k.s.newTask(m)
		if err != nil {
			k.s.setAside(m, err)
			continue
		}
		k.s.backlog.Store(int64(t.meta.NumPending))
		drained = t.meta.NumPending == 0
		left = t.meta.NumPending
		tasks = append(tasks, t)
	}
	k.mu.Lock()
	switch {
	case errors.Is(pullErr, errComeBackLater):
		p.full = true
	case len(tasks) > 0 && left == 0:
		p.full = false
	case len(msgs) >= min(asked, maxPull):
		p.full = false // it gave all that was asked: it had room
	case len(tasks) > 0:
		p.full = true // it stopped short with messages left
	case len(msgs) == 0 && pullErr == nil && p.held == 0:
		p.full = false // nothing of this worker's is pending on it
	}
	p.drainedAt = time.Time{}
	if drained {
		p.drainedAt = time.Now()
	}
	var pause time.Duration
	switch {
	case len(msgs) > 0:
		p.emptyPulls = 0
		p.throttle.reset()
		p.throttledUntil = time.Time{}
	case pullErr == nil:
		p.emptyPulls++
	case errors.Is(pullErr, errComeBackLater):
		k.s.stats.throttled.Add(1)
		pause = p.throttle.next()
		p.throttledUntil = time.Now().Add(pause)
	}
	for _, t := range tasks {
		if t := t.(*task); t.part != nil {
			t.counted = true
			p.held++
			if p.index >= 0 { // the unkeyed consumer has no order to keep
				t.entering = true
				p.entering++
			}
		}
	}
	if p.entering == 0 {
		p.busy = false
		k.flushLocked(p)
	}
	k.unlock()
	if pause > 0 && testHookThrottle != nil {
		testHookThrottle(pause)
	}
	return tasks
}

// taken ends t's part in keeping its partition busy (see
// partition.busy): once every task of the pull is Taken, the partition
// may be pulled again.
func (k *keyed) taken(t *task) {
	p := t.part
	k.mu.Lock()
	defer k.unlock()
	if !t.entering {
		return
	}
	t.entering = false
	if p.entering--; p.entering == 0 {
		p.busy = false
		k.flushLocked(p)
		k.wakeLocked()
	}
}

// settled ends t's hold on its partition; handedBack says it was returned
// unrun, to be Nak'd with the partition's other returned tasks.
func (k *keyed) settled(t *task, handedBack bool) {
	p := t.part
	k.mu.Lock()
	if t.counted {
		p.held--
	}
	if handedBack {
		p.returned = append(p.returned, t.msg)
	}
	k.flushLocked(p)
	idle := !p.owned && p.held == 0 && !p.busy && len(p.returned) == 0 && p.naking == 0
	k.unlock()
	if idle {
		select { // let the member loop unpin it now
		case k.kick <- struct{}{}:
		default:
		}
	}
}

// pendingNak is a returned message whose Nak k.unlock sends.
type pendingNak struct {
	p *partition
	m *nats.Msg
}

// nakTimeout bounds the wait for the server to confirm a returned task's
// Nak: after it, the partition is pulled again, and the task, if the Nak
// was lost, comes back after AckWait.
const nakTimeout = 2 * time.Second

// nakBody is a Nak sent as a request, which the server confirms.
var nakBody = []byte("-NAK")

// flushLocked Naks p's returned messages, in stream order, once p holds
// no other task, no pull on it is in flight and no earlier Nak of it
// waits for its confirmation (see partition.returned). The Naks are
// requests, sent in order by k.unlock once the lock is let go; p is not
// pulled until the server has confirmed them all (see partition.naking).
// A Nak that fails is reported.
func (k *keyed) flushLocked(p *partition) {
	if p.held > 0 || p.busy || p.naking > 0 || len(p.returned) == 0 {
		return
	}
	slices.SortFunc(p.returned, func(a, b *nats.Msg) int {
		return compareSeq(a, b)
	})
	for _, m := range p.returned {
		k.toNak = append(k.toNak, pendingNak{p, m})
	}
	p.naking += len(p.returned)
	p.returned = nil
}

// naked ends the wait for one of p's Naks.
func (k *keyed) naked(p *partition, err error) {
	k.mu.Lock()
	if err != nil {
		k.nakErrs = append(k.nakErrs, fmt.Errorf("weft/jetstream: returning a task of partition %d (it comes back after AckWait): %w", p.index, err))
	}
	p.naking--
	idle := false
	if p.naking == 0 {
		k.flushLocked(p)
		k.wakeLocked()
		idle = !p.owned && p.held == 0 && !p.busy && len(p.returned) == 0 && p.naking == 0
	}
	k.unlock()
	if idle {
		select { // let the member loop unpin it now
		case k.kick <- struct{}{}:
		default:
		}
	}
}

// unlock lets go of k.mu, then sends the Naks flushed under it, and
// reports the Naks that failed: the report calls the user's OnError,
// which may call back into the source (OwnedPartitions takes k.mu).
func (k *keyed) unlock() {
	errs := k.nakErrs
	k.nakErrs = nil
	naks := k.toNak
	k.toNak = nil
	k.mu.Unlock()
	for _, n := range naks {
		if n.m.Reply == "" {
			k.naked(n.p, nats.ErrMsgNoReply)
			continue
		}
		k.s.acker.send(context.Background(), n.m.Reply, nakBody, nakTimeout, func(err error) { k.naked(n.p, err) })
	}
	for _, err := range errs {
		k.s.report(err)
	}
}

func compareSeq(a, b *nats.Msg) int {
	ma, erra := a.Metadata()
	mb, errb := b.Metadata()
	if erra != nil || errb != nil {
		return 0
	}
	switch {
	case ma.Sequence.Stream < mb.Sequence.Stream:
		return -1
	case ma.Sequence.Stream > mb.Sequence.Stream:
		return 1
	}
	return 0
}
