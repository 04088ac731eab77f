package jetstream

import (
	"context"
	"strconv"
	"time"

	"github.com/nats-io/nats.go"
)

// task is one delivery of a JetStream message. It settles through the
// message's reply subject, as the JetStream API prescribes ("+ACK",
// "-NAK", "+WPI", "+TERM").
type task struct {
	msg  *nats.Msg
	meta *nats.MsgMetadata
}

func newTask(msg *nats.Msg) (*task, error) {
	meta, err := msg.Metadata()
	if err != nil {
		return nil, err
	}
	return &task{msg: msg, meta: meta}, nil
}

// ID is the message's stream sequence: the same on every delivery.
func (t *task) ID() string      { return strconv.FormatUint(t.meta.Sequence.Stream, 10) }
func (t *task) Payload() []byte { return t.msg.Data }
func (t *task) Deliveries() int { return int(t.meta.NumDelivered) }

// Ack waits for the server to confirm it (a double ack), so that a nil
// error means the task will not come back.
func (t *task) Ack(ctx context.Context) error { return t.msg.AckSync(nats.Context(ctx)) }

// Nack asks for a redelivery after delay. Like the other settlements
// below it is not confirmed: if it is lost, AckWait redelivers.
func (t *task) Nack(_ context.Context, delay time.Duration) error {
	if delay <= 0 {
		return t.msg.Nak()
	}
	return t.msg.NakWithDelay(delay)
}

// InProgress resets the message's AckWait on the server.
func (t *task) InProgress(context.Context) error { return t.msg.InProgress() }

// Terminate stops redelivery and, the stream being a work queue, deletes
// the message; the reason goes into the server's advisory.
func (t *task) Terminate(_ context.Context, reason string) error {
	if t.msg.Reply == "" {
		return nats.ErrMsgNoReply
	}
	return t.msg.Respond([]byte("+TERM " + reason))
}
