package embedded

import (
	"fmt"
	"net"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// Start starts a server with JetStream stored under dir, listening on
// 127.0.0.1:port (0: a free port, which ClientURL then reports). Starting
// a new server on the port and dir of one shut down brings its streams
// and consumers back.
func Start(dir string, port int) (*server.Server, error) {
	if port == 0 {
		port = server.RANDOM_PORT
	}
	s, err := server.NewServer(&server.Options{
		Host:      "127.0.0.1",
		Port:      port,
		JetStream: true,
		StoreDir:  dir,
		NoLog:     true,
		NoSigs:    true,
	})
	if err != nil {
		return nil, err
	}
	s.Start()
	if !s.ReadyForConnections(10 * time.Second) {
		s.Shutdown()
		return nil, fmt.Errorf("embedded nats-server on port %d not ready", port)
	}
	return s, nil
}

// Port returns the port s listens on.
func Port(s *server.Server) int {
	return s.Addr().(*net.TCPAddr).Port
}
