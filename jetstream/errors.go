package weftjs

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

// ErrClosed is wrapped by the error Poll, Publish and PublishKey return
// once the Source is closed: a closed source hands out no task (its acks
// could not be sent, so a task it handed out would run again) and stores
// none.
var ErrClosed = errors.New("weft/jetstream: source closed")

// ErrBadKey is wrapped by the error PublishKeyed, PublishKeyedAsync and
// Source.PublishKey return for a key no task can have, before anything is
// sent: an empty key (a task without a key is published with Publish, to
// the unkeyed subject) or one longer than MaxKeyLen. The message says
// which.
var ErrBadKey = errors.New("weft/jetstream: bad key")

// ErrDeadLetter is wrapped by the error Terminate returns when the task
// could not be stored in the dead-letter stream: the task is then not
// terminated, and comes back after AckWait.
var ErrDeadLetter = errors.New("weft/jetstream: dead-letter publish failed")

// ErrRecordTooLarge is wrapped by the ErrDeadLetter error of a task that
// cannot be stored in the dead-letter stream in any form: its own headers
// and the Weft-Dead-* ones exceed what a record can hold (the server's
// max_payload, or the 64 KiB of headers JetStream stores with a message;
// a payload too large for one record is stored in parts, see
// HeaderDeadParts). The task is not terminated: it stays in the work
// queue until the server's MaxDeliver, and each attempt is reported.
var ErrRecordTooLarge = errors.New("weft/jetstream: the dead-letter record is too large to store")
