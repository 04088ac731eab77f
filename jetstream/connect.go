package weftjs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/url"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/nats-io/nats.go"
)

// ErrBadURL is wrapped by the error Connect returns for a server URL that
// names no NATS server: a scheme other than nats://, tls://, ws:// or
// wss://, or a URL that does not parse.
var ErrBadURL = errors.New("not a NATS server URL")

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
//
// The first connection is not retried: when no server can be reached or
// one refuses the client, Connect fails with the cause in the error (the
// refused or timed-out dial of each server, the server's authorization
// violation, the TLS handshake's x509 error), wrapping nats.go's sentinel
// where it has one (nats.ErrNoServers, nats.ErrAuthorization, nats.ErrTLS,
// ...) so that errors.Is tells them apart. A URL whose scheme is not one
// of NATS's is refused with ErrBadURL rather than dialled as nats://. To
// wait for servers that are still starting, use ConnectContext.
//
// Credentials and TLS are nats.go options: nats.UserCredentials,
// nats.UserInfo, nats.Token, nats.RootCAs, nats.ClientCert and the like.
func Connect(url string, opts ...nats.Option) (*nats.Conn, error) {
	return connect(context.Background(), url, opts)
}

// ConnectContext is Connect, waiting for the servers while ctx allows:
// as long as none can be reached (connection refused, a dial that timed
// out, a server closing the connection while it starts), it tries again
// every 250ms or so. An error that trying again cannot mend (a bad URL,
// refused credentials, a TLS failure) is returned at once. When ctx ends
// first, the error wraps both ctx's error and the last attempt's.
func ConnectContext(ctx context.Context, url string, opts ...nats.Option) (*nats.Conn, error) {
	for {
		nc, err := connect(ctx, url, opts)
		if err == nil || !unreachable(err) {
			return nc, err
		}
		// The jitter keeps workers started together from dialling in step.
		t := time.NewTimer(200*time.Millisecond + rand.N(100*time.Millisecond))
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, fmt.Errorf("%w (stopped waiting: %w)", err, ctx.Err())
		case <-t.C:
		}
	}
}

func connect(ctx context.Context, urls string, opts []nats.Option) (*nats.Conn, error) {
	o := nats.GetDefaultOptions()
	for _, s := range strings.Split(urls, ",") {
		if s = strings.TrimSpace(s); s != "" {
			o.Servers = append(o.Servers, s)
		}
	}
	base := []nats.Option{
		nats.MaxReconnects(-1),
		nats.ReconnectWait(250 * time.Millisecond),
		nats.ReconnectJitter(100*time.Millisecond, time.Second),
		nats.ReconnectBufSize(-1),
	}
	for _, opt := range append(base, opts...) {
		if opt == nil {
			continue
		}
		if err := opt(&o); err != nil {
			return nil, fmt.Errorf("weft/jetstream: connecting to %s: %w", redact(o.Servers), err)
		}
	}
	where := redact(o.Servers)
	if o.Url != "" {
		where = redact(append([]string{o.Url}, o.Servers...))
	}
	for _, s := range append([]string{o.Url}, o.Servers...) {
		if err := checkURL(s); err != nil {
			return nil, fmt.Errorf("weft/jetstream: connecting to %s: %w", where, err)
		}
	}
	// nats.go reports a refused connection as nats.ErrNoServers alone,
	// dropping the cause: a dialer of our own keeps it. A caller's own
	// dialer is left alone.
	var dialer *recordingDialer
	if o.CustomDialer == nil {
		dialer = newRecordingDialer(ctx, o)
		o.CustomDialer = dialer
	}
	nc, err := o.Connect()
	if dialer != nil {
		dialer.connected()
	}
	if err == nil {
		return nc, nil
	}
	// A TLS alert from the server (a client certificate it wants or
	// rejects) comes after nats.go's handshake, unwrapped.
	var opErr *net.OpError
	if errors.As(err, &opErr) && opErr.Op == "remote error" && !errors.Is(err, nats.ErrTLS) {
		err = fmt.Errorf("%w: %w", nats.ErrTLS, err)
	}
	if dialer != nil {
		// With nats.ErrNoServers the dial errors are the cause; with
		// another error (one server refused the client) they are news
		// about the other servers.
		if cause := dialer.cause(); cause != nil && errors.Is(err, nats.ErrNoServers) {
			err = fmt.Errorf("%w: %w", err, cause)
		} else if cause != nil && !errors.Is(err, cause) {
			err = fmt.Errorf("%w (other servers: %w)", err, cause)
		}
	}
	return nil, fmt.Errorf("weft/jetstream: connecting to %s: %w", where, err)
}

// checkURL refuses what nats.go would dial as nats:// although it names
// another protocol (http://, foo://). Like nats.go, it reads a URL
// without "://" as host:port.
func checkURL(s string) error {
	if s == "" || !strings.Contains(s, "://") {
		return nil
	}
	u, err := url.Parse(s)
	if err != nil {
		// url.Error quotes the URL, which may hold a password.
		return fmt.Errorf("%w: %s does not parse", ErrBadURL, redactURL(s))
	}
	switch strings.ToLower(u.Scheme) {
	case "nats", "tls", "ws", "wss":
		return nil
	}
	return fmt.Errorf("%w: %s has scheme %q; NATS servers are reached with nats://, tls://, ws:// or wss://",
		ErrBadURL, redactURL(s), u.Scheme)
}

// redact lists the server URLs for an error message, without the user,
// password or token a URL may carry.
func redact(urls []string) string {
	if len(urls) == 0 {
		return nats.DefaultURL
	}
	out := make([]string, 0, len(urls))
	for _, s := range urls {
		if s != "" {
			out = append(out, redactURL(s))
		}
	}
	return strings.Join(out, ",")
}

func redactURL(s string) string {
	scheme, rest, ok := strings.Cut(s, "://")
	if !ok {
		scheme, rest = "", s
	}
	// The userinfo ends at the last '@' before the path.
	host := rest
	if i := strings.IndexAny(host, "/?#"); i >= 0 {
		host = host[:i]
	}
	if i := strings.LastIndex(host, "@"); i >= 0 {
		rest = "***@" + rest[i+1:]
	}
	if !ok {
		return rest
	}
	return scheme + "://" + rest
}

// unreachable reports whether err says no server could be reached, which
// a server that is starting mends, rather than that one refused the client.
func unreachable(err error) bool {
	switch {
	case errors.Is(err, ErrBadURL), errors.Is(err, nats.ErrTLS),
		errors.Is(err, nats.ErrAuthorization), errors.Is(err, nats.ErrAuthExpired),
		errors.Is(err, nats.ErrAuthRevoked), errors.Is(err, nats.ErrAccountAuthExpired):
		return false
	}
	var opErr *net.OpError
	return errors.Is(err, nats.ErrNoServers) || errors.Is(err, nats.ErrTimeout) ||
		errors.As(err, &opErr) || errors.Is(err, io.EOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED)
}

// recordingDialer dials as nats.go would and, until the first connection
// is made, keeps each address's dial error for Connect's message.
type recordingDialer struct {
	dialer net.Dialer

	mu   sync.Mutex
	ctx  context.Context // the caller's while connecting, then Background
	errs []error         // one per address, in the order first tried
	addr map[string]int  // index into errs
	done bool
}

func newRecordingDialer(ctx context.Context, o nats.Options) *recordingDialer {
	d := &recordingDialer{ctx: ctx, addr: map[string]int{}}
	if o.Dialer != nil {
		d.dialer = *o.Dialer
	} else {
		d.dialer.Timeout = o.Timeout
		if d.dialer.Timeout == 0 {
			d.dialer.Timeout = nats.DefaultTimeout
		}
	}
	if o.AllowMultipathTCP != nil {
		d.dialer.SetMultipathTCP(*o.AllowMultipathTCP)
	}
	return d
}

// Dial implements nats.CustomDialer.
func (d *recordingDialer) Dial(network, address string) (net.Conn, error) {
	d.mu.Lock()
	ctx := d.ctx
	d.mu.Unlock()
	conn, err := d.dialer.DialContext(ctx, network, address)
	if err != nil {
		d.mu.Lock()
		if !d.done {
			if i, ok := d.addr[address]; ok {
				d.errs[i] = err
			} else {
				d.addr[address] = len(d.errs)
				d.errs = append(d.errs, err)
			}
		}
		d.mu.Unlock()
	}
	return conn, err
}

// connected ends the recording: later dials are reconnects, which the
// caller's context no longer bounds.
func (d *recordingDialer) connected() {
	d.mu.Lock()
	d.ctx, d.done = context.Background(), true
	d.mu.Unlock()
}

// cause returns the dial errors, joined with "; ", or nil if every dial
// succeeded.
func (d *recordingDialer) cause() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	switch len(d.errs) {
	case 0:
		return nil
	case 1:
		return d.errs[0]
	}
	return dialErrors(d.errs)
}

// dialErrors is a list of dial errors on one line (errors.Join would
// break it over several).
type dialErrors []error

func (e dialErrors) Error() string {
	s := make([]string, len(e))
	for i, err := range e {
		s[i] = err.Error()
	}
	return strings.Join(s, "; ")
}

func (e dialErrors) Unwrap() []error { return e }
