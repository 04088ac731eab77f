package weftjs

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	natsjs "github.com/nats-io/nats.go/jetstream"
)

// keepPins renews the pins this worker holds every third of MemberTTL, on
// a ticker of its own. The member loop cannot do it: it waits on the
// member bucket, whose requests, when the bucket is out of reach (its
// stream's leader lost, a server too busy to answer) while the partitions
// are not, each take up to bindTimeout to time out. Meanwhile this
// worker's entry expires, the others take its partitions, and a PinnedTTL
// shorter than that wait would hand them over while their tasks still run
// here (TestHungMemberBucketKeepsPins).
func (k *keyed) keepPins() {
	defer close(k.pinsDone)
	tick := time.NewTicker(k.s.cfg.MemberTTL / 3)
	defer tick.Stop()
	for {
		select {
		case <-tick.C:
		case <-k.stop:
			return
		}
		if k.s.nc.IsClosed() {
			continue
		}
		k.mu.Lock()
		owned := k.pinsOwned
		k.mu.Unlock()
		k.keepAliveHeld(owned)
	}
}

// keepAliveHeld renews the pins of the partitions this worker still
// holds tasks of and, if owned, of those the last refresh assigned to it:
// when the member bucket cannot be read, or the consumers cannot be
// bound, the pins must not lapse under running tasks. Only a worker that
// still polls (the bucket is out of reach, the consumers are bound) keeps
// its assignment: one that cannot bind would hold idle partitions that
// nobody polls. A partition let go of (unpin) has no pin left to renew.
func (k *keyed) keepAliveHeld(owned bool) {
	var alive []*partition
	k.mu.Lock()
	for _, p := range k.parts[:len(k.parts)-1] {
		if (owned && p.owned) || p.held > 0 || p.busy || len(p.returned) > 0 || p.naking > 0 {
			alive = append(alive, p)
		}
	}
	k.mu.Unlock()
	for _, p := range alive {
		k.keepAlive(p)
	}
}

func (k *keyed) setPinsOwned(owned bool) {
	k.mu.Lock()
	k.pinsOwned = owned
	k.mu.Unlock()
}

// keepAlive renews p's pin, if this worker holds it, with a pull request
// that no message fits (max_bytes 1): the server resets the pin's timer
// when a request carries it, so a worker whose slots are all busy (it
// does not poll) keeps its partitions. The answer (a 409, a 404, or a 423
// if the pin is stale) comes to the sink; see keptAlive.
func (k *keyed) keepAlive(p *partition) {
	pin := p.puller.getPin()
	if pin == "" {
		return
	}
	req := fmt.Sprintf(`{"batch":1,"max_bytes":1,"no_wait":true,"group":%q,"id":%q}`, pinGroup, pin)
	reply := fmt.Sprintf("%s.%d.%s", strings.TrimSuffix(k.sink.Subject, ".>"), p.index, pin)
	_ = k.s.nc.PublishRequest(p.puller.subject, reply, []byte(req))
}

// keptAlive reads the answer to a keep-alive: a 423 says the pin it
// carried is stale (it lapsed), so that the next pull asks for a new one.
func (k *keyed) keptAlive(inbox string, m *nats.Msg) {
	if m.Reply != "" || m.Header.Get("Status") != "423" {
		return
	}
	idx, pin, ok := strings.Cut(strings.TrimPrefix(m.Subject, inbox+"."), ".")
	i, err := strconv.Atoi(idx)
	if !ok || err != nil || i < 0 || i >= len(k.parts)-1 {
		return
	}
	k.parts[i].puller.dropPin(pin)
}

// unpin lets go of a partition no longer assigned to this worker, once it
// holds none of its tasks: its new owner, whose pulls the server holds
// back while the pin is ours, gets it at once rather than after
// PinnedTTL. Before the tasks are settled it must not: the new owner
// would run a key's next tasks while this worker still runs its earlier
// ones.
//
// The server's unpin names no pin: it lets go of whichever client holds
// the partition. Ours may have lapsed (this worker paused or cut off for
// longer than PinnedTTL, a server restart) and the partition be pinned
// to its new owner since, whose running keys an unpin would open to any
// other puller. So it unpins only a partition the server says is pinned
// to this worker's pin; another's pin is left alone, and ours forgotten.
func (k *keyed) unpin(ctx context.Context, p *partition) {
	pin := p.puller.getPin()
	if pin == "" {
		return
	}
	holder, err := k.pinnedTo(ctx, p)
	if err == nil && holder != pin {
		p.puller.dropPin(pin)
		return
	}
	if err == nil {
		err = k.stream.UnpinConsumer(ctx, p.consumer, pinGroup)
	}
	if err != nil && !errors.Is(err, natsjs.ErrConsumerNotFound) {
		k.s.report(fmt.Errorf("weft/jetstream: unpinning partition %d (it moves after PinnedTTL instead): %w", p.index, err))
		return
	}
	p.puller.dropPin(pin)
}

// pinnedTo returns the pin that p's consumer is pinned to now, "" if none.
func (k *keyed) pinnedTo(ctx context.Context, p *partition) (string, error) {
	c, err := k.stream.Consumer(ctx, p.consumer)
	if err != nil {
		return "", err
	}
	for _, g := range c.CachedInfo().PriorityGroups {
		if g.Group == pinGroup {
			return g.PinnedClientID, nil
		}
	}
	return "", nil
}
