package main

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"sync"

	"github.com/weftrt/weft/intake"
)

// orderCheck counts, per key, the runs in this process that break the
// keyed guarantees: a task run while another of its key runs here
// (overlap), and a task run after a later one of its key (out of order),
// the latter split by whether it was a redelivery (allowed: a retry, a
// task whose worker died) or a first delivery (a bug). It sees only this
// process: run it in every worker and add the figures up.
type orderCheck struct {
	keys int

	mu                  sync.Mutex
	running             map[string]int
	last                map[string]int // the highest task number run, per key
	runs                int
	overlaps            int
	outOfOrder          int // first deliveries
	redelivered, redOOO int
}

func newOrderCheck(keys int) *orderCheck {
	return &orderCheck{keys: keys, running: map[string]int{}, last: map[string]int{}}
}

func (c *orderCheck) wrap(h intake.Handler) intake.Handler {
	return func(ctx context.Context, t intake.Task) error {
		key := ""
		if k, ok := t.(intake.Keyed); ok {
			key = k.Key()
		}
		i, err := strconv.Atoi(string(t.Payload()))
		if key == "" || err != nil {
			return h(ctx, t)
		}
		seq := i / c.keys
		c.mu.Lock()
		c.runs++
		if c.running[key] > 0 {
			c.overlaps++
		}
		c.running[key]++
		last, seen := c.last[key]
		if t.Deliveries() > 1 {
			c.redelivered++
			if seen && seq < last {
				c.redOOO++
			}
		} else if seen && seq < last {
			c.outOfOrder++
		}
		if !seen || seq > last {
			c.last[key] = seq
		}
		c.mu.Unlock()
		err = h(ctx, t)
		c.mu.Lock()
		c.running[key]--
		c.mu.Unlock()
		return err
	}
}

func (c *orderCheck) print() {
	c.mu.Lock()
	defer c.mu.Unlock()
	fmt.Fprintf(os.Stderr, "order check: keyed runs %d over %d keys; out of order %d (first deliveries; want 0); redelivered %d (of which out of order %d: allowed); overlapping runs %d (want 0)\n",
		c.runs, len(c.last), c.outOfOrder, c.redelivered, c.redOOO, c.overlaps)
}
