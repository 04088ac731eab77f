package jetstream

import "errors"

// ErrConfig is wrapped by the error NewSource returns for a Config (or a
// JetStream handle) it cannot run with; the message names the field, the
// value and the rule.
var ErrConfig = errors.New("weft/jetstream: invalid config")

// ErrConnClosed is wrapped by the error Poll returns once the connection
// is closed for good (nats.go gave up reconnecting, say because the
// credentials were rotated under the worker): no later poll can succeed,
// so the worker should stop and a supervisor start a new one. The error
// also wraps the connection's last error, which names the cause.
var ErrConnClosed = errors.New("weft/jetstream: connection closed for good")

// ErrDeadLetter is wrapped by the error Terminate returns when the task
// could not be stored in the dead-letter stream: the task is then not
// terminated, and comes back after AckWait.
var ErrDeadLetter = errors.New("weft/jetstream: dead-letter publish failed")
