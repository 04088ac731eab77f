package wefttemporal

import (
	"github.com/weftrt/weft/slots"
)

// Option configures a Supplier; pass options to NewSupplier or in
// TunerOptions.Options.
type Option func(*config)

type config struct {
	onError func(error)
	tracker []slots.TrackerOption
}

// WithLeakHook turns on the Tracker's leak detection (slots.WithLeakHook):
// a permit Temporal drops without releasing it is released to the weft
// supplier with reason slots.TaskFailed(slots.ErrPermitLeaked) once the
// garbage collector finds it, and f is told. It costs three small
// allocations per reservation; see slots.WithLeakHook for when f runs.
func WithLeakHook(f func(slots.Leak)) Option {
	if f == nil {
		panic("weft/temporal: WithLeakHook with a nil function")
	}
	return func(c *config) { c.tracker = append(c.tracker, slots.WithLeakHook(f)) }
}

// WithErrorHook makes a Supplier hand f the errors Temporal's calls cause
// and cannot be told of, since MarkSlotUsed and ReleaseSlot return
// nothing: a permit released twice (slots.ErrReleasedTwice) or marked
// twice (slots.ErrMarkedTwice), one of another Supplier
// (slots.ErrForeignPermit) or of no Supplier here (ErrUnknownPermit). The
// supplier never sees such a call. Without a hook these errors are
// logged at Error level through the logger Temporal passes with the call.
// f must not block: it runs on the Temporal goroutine that made the call.
func WithErrorHook(f func(error)) Option {
	if f == nil {
		panic("weft/temporal: WithErrorHook with a nil function")
	}
	return func(c *config) { c.onError = f }
}
