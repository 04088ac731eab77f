// Package natstest runs a NATS server with JetStream inside the process,
// for tests, examples and trying weftjs out on one machine: nothing to
// install, nothing to configure. It is not for production: the server
// listens on 127.0.0.1 only, has no authentication, no TLS and no
// cluster, and logs nothing.
//
//	srv, err := natstest.Start(ctx, natstest.Options{})
//	if err != nil {
//		return err
//	}
//	defer srv.Shutdown(context.Background())
//	nc, err := weftjs.Connect(srv.URL())
//
// With the zero Options the server stores its streams in a temporary
// directory that Shutdown removes. A test that restarts the server (to
// see what survives a restart) gives it a Dir of its own, t.TempDir()
// say, and starts the new server on the old one's Dir and Port: it finds
// the streams and consumers the old one left.
package natstest
