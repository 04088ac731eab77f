package intake

import (
	"context"
	"errors"
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/weftrt/weft/scheduler"
	"github.com/weftrt/weft/slots"
)

// The calls a delivery's life makes to settle a task and release its
// slot, each the source's or the supplier's code, with their failures
// met in one place.

// settleCall runs one settlement call, the task's method what, under
// SettleTimeout. A failure, a
// panic included, is counted and reported but not retried: the source's
// lease runs out and it delivers the task again, which is what
// at-least-once promises. runtime.Goexit fails the worker (see call).
func (w *Worker) settleCall(t Task, what string, call func(context.Context) error) (err error) {
	ctx, cancel := context.WithTimeout(w.settleCtx, w.cfg.SettleTimeout)
	defer cancel()
	if pan := w.call("the source's "+what, func() { err = call(ctx) }); pan != nil {
		err = pan
	}
	if err != nil {
		w.counts.settleErrors.Add(1)
		w.report(taskErr("settling", t, err))
	}
	return err
}

// releaseSlot releases p through the tracker. The tracker records the
// release before it calls the supplier, so a supplier that fails in
// ReleaseSlot loses no slot of ours: a panic is reported and goes no
// further.
func (w *Worker) releaseSlot(p slots.Permit, reason slots.ReleaseReason) {
	var err error
	if pan := w.call("the supplier's ReleaseSlot", func() { err = w.tracker.Release(p, reason) }); pan != nil {
		w.report(fmt.Errorf("weft/intake: releasing %v: %w", p, pan))
		return
	}
	must(err)
}

// backoff returns b(n), from a Backoff of the user's (Config's field
// name), or fallback(n) if b panics, which is reported.
func (w *Worker) backoff(name string, b, fallback Backoff, n int) (d time.Duration) {
	if err := w.call("Config."+name, func() { d = b(n) }); err != nil {
		w.report(fmt.Errorf("weft/intake: the default backoff stands in for attempt %d: %w", n, err))
		return fallback(n)
	}
	return d
}

// cutShort reports whether a task failed with err because the worker
// cancelled its handler's context (Close, or a Shutdown whose deadline
// passed), and not by a fault of its own.
func (w *Worker) cutShort(err error) bool {
	return w.runCtx.Err() != nil && errors.Is(err, context.Canceled) && !errors.Is(err, ErrPoison)
}

// poisoned reports whether d, which failed with err, must not be retried.
func (w *Worker) poisoned(d *delivery, err error) bool {
	if errors.Is(err, ErrPoison) {
		return true
	}
	limit := w.cfg.MaxDeliveries
	return limit > 0 && int(d.deliveries) >= limit
}

// terminateReason is the reason a task that failed with err is terminated
// with: the error's text, except for a panic, whose stack (with the
// handler's source paths) is left out: the panic's value and type say
// what happened.
func terminateReason(err error) string {
	var pan *scheduler.Panic
	if errors.As(err, &pan) {
		// The value is cut short so that the type, after it, survives a
		// source that bounds the reason.
		v := fmt.Sprint(pan.Value)
		if len(v) > maxPanicValue {
			cut := maxPanicValue
			for cut > 0 && !utf8.RuneStart(v[cut]) {
				cut--
			}
			v = v[:cut] + "..."
		}
		return fmt.Sprintf("weft: task panicked: %s (%T)", v, pan.Value)
	}
	return err.Error()
}

// maxPanicValue bounds the panic value's text in a terminate reason.
const maxPanicValue = 256

// unrunName names the call returnUnrun makes for t.
func unrunName(t Task) string {
	if _, ok := t.(HandBacker); ok {
		return "HandBack"
	}
	return "Nack"
}

// returnUnrun returns a task that never ran: with HandBack where the task
// has it, so that the return does not count as a delivery, else with a
// Nack with no delay.
func returnUnrun(ctx context.Context, t Task) error {
	if h, ok := t.(HandBacker); ok {
		return h.HandBack(ctx)
	}
	return t.Nack(ctx, 0)
}
