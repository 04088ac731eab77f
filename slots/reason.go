package slots

import (
	"errors"
	"strconv"
)

// ReasonKind says why a slot was released.
type ReasonKind uint8

const (
	// ReasonComplete: the task ran to its end. It is the zero ReasonKind.
	ReasonComplete ReasonKind = iota
	// ReasonNeverUsed: the slot was reserved but no task ran on it, for
	// example because the pool shut down before a worker took the task.
	ReasonNeverUsed
	// ReasonFailed: the task failed (returned an error or panicked), or
	// the slot had to be given up for an error; the reason carries it.
	ReasonFailed
)

// String returns "complete", "never used" or "failed".
func (k ReasonKind) String() string {
	switch k {
	case ReasonComplete:
		return "complete"
	case ReasonNeverUsed:
		return "never used"
	case ReasonFailed:
		return "failed"
	}
	return "ReasonKind(" + strconv.Itoa(int(k)) + ")"
}

// errNeverUsed marks a NeverUsed reason. It is unexported, so no caller can
// pass it to TaskFailed.
var errNeverUsed = errors.New("never used")

// ReleaseReason says why a slot is being released, and for a failure,
// the error. The zero ReleaseReason is TaskComplete.
type ReleaseReason struct {
	// err is nil for TaskComplete, errNeverUsed for NeverUsed and the
	// task's error for TaskFailed: one word pair, so that ReleaseInfo
	// stays small enough to be passed in registers.
	err error
}

// TaskComplete is the reason for a slot whose task ran to its end.
func TaskComplete() ReleaseReason { return ReleaseReason{} }

// NeverUsed is the reason for a slot that was reserved but never marked
// used.
func NeverUsed() ReleaseReason { return ReleaseReason{err: errNeverUsed} }

// TaskFailed is the reason for a slot whose task failed with err. It
// panics if err is nil: a failure without an error says nothing a
// supplier could act on.
func TaskFailed(err error) ReleaseReason {
	if err == nil {
		panic("weft/slots: TaskFailed with a nil error")
	}
	return ReleaseReason{err: err}
}

// Kind returns which of the three reasons r is.
func (r ReleaseReason) Kind() ReasonKind {
	switch r.err {
	case nil:
		return ReasonComplete
	case errNeverUsed:
		return ReasonNeverUsed
	}
	return ReasonFailed
}

// Err returns the error of a TaskFailed reason, unchanged so that errors.Is
// and errors.As see through it, and nil for the other reasons.
func (r ReleaseReason) Err() error {
	if r.err == errNeverUsed {
		return nil
	}
	return r.err
}

// String returns the kind, followed for a failure by ": " and the error.
func (r ReleaseReason) String() string {
	if err := r.Err(); err != nil {
		return r.Kind().String() + ": " + err.Error()
	}
	return r.Kind().String()
}
