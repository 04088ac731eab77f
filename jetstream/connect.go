package jetstream

import (
	"time"

	"github.com/nats-io/nats.go"
)

// Connect connects to the NATS servers at url (a comma-separated list for
// a cluster) with the options a worker wants, followed by opts:
//
//   - reconnect forever, 250ms apart with jitter (nats.go's own backoff),
//     so that a server restart or a failover is waited out;
//   - no reconnect buffer: while disconnected a fetch, ack or nack fails
//     at once instead of being queued for a server that may come back
//     without the consumer's state. The worker then backs off
//     (intake.Config.PollBackoff) and releases the fetch's slots; tasks
//     whose settlement failed are delivered again after AckWait.
func Connect(url string, opts ...nats.Option) (*nats.Conn, error) {
	base := []nats.Option{
		nats.MaxReconnects(-1),
		nats.ReconnectWait(250 * time.Millisecond),
		nats.ReconnectJitter(100*time.Millisecond, time.Second),
		nats.ReconnectBufSize(-1),
		nats.RetryOnFailedConnect(true),
	}
	return nats.Connect(url, append(base, opts...)...)
}
