package weftjs

import (
	"context"
	"time"
)

// ObserveThrottle makes f see every pause a throttled poll takes, until
// the returned function is called.
func ObserveThrottle(f func(time.Duration)) (stop func()) {
	testHookThrottle = f
	return func() { testHookThrottle = nil }
}

// AckVia sends a double ack to reply through src's acker, as a task's
// AckAsync does.
func AckVia(ctx context.Context, src *Source, reply string, timeout time.Duration, done func(error)) {
	src.acker.ack(ctx, reply, timeout, done)
}

// ErrSourceClosed fails the acks still waiting when their source closes.
var ErrSourceClosed = errSourceClosed

// Assign is the partition assignment over a member list, for tests that
// need a member ID that wins a given partition.
var Assign = assign
