package natstest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// ErrNotReady is wrapped by the error Start returns when the server it
// started did not take connections in time (StartWait, or ctx's end if
// that comes first). Start has shut that server down again.
var ErrNotReady = errors.New("natstest: server not ready for connections")

// StartWait bounds how long Start waits for the server to take
// connections when ctx allows longer.
const StartWait = 10 * time.Second

// host is the only address the server listens on.
const host = "127.0.0.1"

// Options configures Start. The zero Options gives a server on a free
// port, storing JetStream in a temporary directory that Shutdown removes.
type Options struct {
	// Dir is the JetStream store directory. Empty: a new temporary
	// directory, removed by Shutdown. A Dir given is left in place for
	// the caller (t.TempDir() removes itself), so that a server started
	// again on it, and on the same Port, finds the streams and consumers
	// this one left.
	Dir string
	// Port is the client port on 127.0.0.1. 0: a free port, which
	// Server.Port and Server.URL report.
	Port int
}

// Server is a NATS server with JetStream running in this process,
// started by Start. Its methods may be called from any goroutine.
type Server struct {
	srv    *server.Server
	dir    string
	ownDir bool // dir was made by Start: Shutdown removes it
	port   int

	stopOnce sync.Once
	down     chan struct{} // closed once the server is down and ownDir removed
	stopErr  error         // the removal's error; written before down is closed
}

// Start starts a server as opts says and waits until it takes
// connections, while ctx allows and for StartWait at most. It returns an
// error, never panics: ctx's cause if ctx ends first, an error naming the
// address (and wrapping the system's, syscall.EADDRINUSE say) when
// opts.Port cannot be listened on, ErrNotReady when the server does not
// come up in time. On error nothing is left running and a temporary
// directory it made is removed.
func Start(ctx context.Context, opts Options) (*Server, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("natstest: start: %w", context.Cause(ctx))
	}
	if opts.Port < 0 || opts.Port > 65535 {
		return nil, fmt.Errorf("natstest: Port %d: want 0 (a free port) to 65535", opts.Port)
	}
	if opts.Port != 0 {
		// The server reports a port it cannot listen on only by never
		// becoming ready: try it first, for an error that says why.
		l, err := net.Listen("tcp", net.JoinHostPort(host, strconv.Itoa(opts.Port)))
		if err != nil {
			return nil, fmt.Errorf("natstest: port %d: %w", opts.Port, err)
		}
		l.Close()
	}
	s := &Server{dir: opts.Dir, down: make(chan struct{})}
	if s.dir == "" {
		dir, err := os.MkdirTemp("", "natstest-")
		if err != nil {
			return nil, fmt.Errorf("natstest: store directory: %w", err)
		}
		s.dir, s.ownDir = dir, true
	}
	port := opts.Port
	if port == 0 {
		port = server.RANDOM_PORT
	}
	srv, err := server.NewServer(&server.Options{
		Host:      host,
		Port:      port,
		JetStream: true,
		StoreDir:  s.dir,
		NoLog:     true,
		NoSigs:    true,
	})
	if err != nil {
		s.removeDir()
		return nil, fmt.Errorf("natstest: %w", err)
	}
	s.srv = srv
	srv.Start()
	if err := waitReady(ctx, srv); err != nil {
		srv.Shutdown()
		srv.WaitForShutdown()
		s.removeDir()
		where := net.JoinHostPort(host, strconv.Itoa(opts.Port))
		if opts.Port == 0 {
			where = host + ", a free port"
		}
		return nil, fmt.Errorf("%w (%s, JetStream in %s)", err, where, s.dir)
	}
	s.port = srv.Addr().(*net.TCPAddr).Port
	return s, nil
}

// waitReady waits until srv takes connections, ctx ends, or StartWait
// passes.
func waitReady(ctx context.Context, srv *server.Server) error {
	// ReadyForConnections sleeps 25ms between its checks when given
	// longer than that; short calls let ctx be checked between them.
	const step = 100 * time.Millisecond
	for range StartWait / step {
		if srv.ReadyForConnections(step) {
			return nil
		}
		if ctx.Err() != nil {
			return fmt.Errorf("natstest: start: %w", context.Cause(ctx))
		}
	}
	return fmt.Errorf("%w after %v", ErrNotReady, StartWait)
}

// URL is the client URL to connect to: "nats://127.0.0.1:<port>".
func (s *Server) URL() string { return "nats://" + net.JoinHostPort(host, strconv.Itoa(s.port)) }

// Port is the client port the server listens on, for starting another
// server on it once this one is shut down.
func (s *Server) Port() int { return s.port }

// Dir is the JetStream store directory: Options.Dir, or the temporary
// directory Start made (gone once Shutdown returned nil).
func (s *Server) Dir() string { return s.dir }

// Shutdown stops the server, closing its clients' connections, and
// removes the temporary directory Start made (never an Options.Dir). It
// waits for that while ctx allows: if ctx ends first it returns ctx's
// cause and the shutdown goes on in the background (call Shutdown again
// to wait for it). Once the server is down, every call returns what the
// first did: nil, or the error removing the directory.
func (s *Server) Shutdown(ctx context.Context) error {
	s.stopOnce.Do(func() { go s.stop() })
	select {
	case <-s.down:
		return s.stopErr
	case <-ctx.Done():
		select {
		case <-s.down: // both ready: the server is down, say so
			return s.stopErr
		default:
		}
		return fmt.Errorf("natstest: shutdown of %s: %w", s.URL(), context.Cause(ctx))
	}
}

// stop shuts the server down, removes its own directory and closes down.
func (s *Server) stop() {
	s.srv.Shutdown()
	s.srv.WaitForShutdown()
	s.stopErr = s.removeDir()
	close(s.down)
}

// removeDir removes the directory Start made, if it made one.
func (s *Server) removeDir() error {
	if !s.ownDir {
		return nil
	}
	if err := os.RemoveAll(s.dir); err != nil {
		return fmt.Errorf("natstest: removing the store directory: %w", err)
	}
	return nil
}
