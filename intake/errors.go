package intake

import "errors"

// ErrConfig is returned by New for a Config it cannot run.
var ErrConfig = errors.New("weft/intake: invalid config")

// ErrBackoff is wrapped by the error NewExponential returns (and
// Exponential panics with) for bounds that cannot be meant.
var ErrBackoff = errors.New("weft/intake: invalid backoff")

// ErrPoison marks a handler error that no retry will cure: the worker
// terminates the task (it will not be delivered again) instead of asking
// for a redelivery. Wrap an error with Poison, or return one that wraps
// ErrPoison.
var ErrPoison = errors.New("weft/intake: poison task")

// ErrLeaseLost is returned by a MemQueue task's Ack, Nack, InProgress and
// Terminate when the delivery no longer holds the task: its lease expired
// and the task went back to the queue (it may already be running
// elsewhere), or this delivery already settled it.
var ErrLeaseLost = errors.New("weft/intake: lease lost")

// Poison wraps err so that the worker terminates the task that failed
// with it. errors.Is(Poison(err), ErrPoison) and errors.Is(Poison(err),
// err) both hold. Poison(nil) is ErrPoison.
func Poison(err error) error {
	if err == nil {
		return ErrPoison
	}
	return poisonError{err}
}

type poisonError struct{ err error }

func (p poisonError) Error() string { return "poison task: " + p.err.Error() }

// Unwrap returns both the cause and ErrPoison, so errors.Is finds either.
func (p poisonError) Unwrap() []error { return []error{p.err, ErrPoison} }

// ErrFailed is wrapped by the error a worker stops with by itself: user
// code other than a handler (a source's Poll or a task's method, a
// supplier, a backoff) called runtime.Goexit, as t.FailNow and require.*
// do. The worker reports it to OnError, stops polling, hands back every
// task not started and lets the running ones settle; Stats().Err and
// Shutdown return it.
var ErrFailed = errors.New("weft/intake: worker failed")
