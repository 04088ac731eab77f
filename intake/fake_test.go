package intake_test

import (
	"context"
	"sync/atomic"
	"time"
)

type counter = atomic.Int64

// fakeTask is a task of a hand-made source: it counts its settlements.
type fakeTask struct {
	id         string
	payload    []byte
	deliveries int
	settled    atomic.Bool
	acked      *counter
	nacked     *counter
	terminated *counter
}

func (f *fakeTask) ID() string      { return f.id }
func (f *fakeTask) Payload() []byte { return f.payload }
func (f *fakeTask) Deliveries() int { return f.deliveries }

func (f *fakeTask) count(c *counter) error {
	if !f.settled.CompareAndSwap(false, true) {
		return errNotFake
	}
	if c != nil {
		c.Add(1)
	}
	return nil
}

func (f *fakeTask) Ack(context.Context) error                 { return f.count(f.acked) }
func (f *fakeTask) Nack(context.Context, time.Duration) error { return f.count(f.nacked) }
func (f *fakeTask) InProgress(context.Context) error          { return nil }
func (f *fakeTask) Terminate(context.Context, string) error   { return f.count(f.terminated) }
