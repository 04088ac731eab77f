package weftjs_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/require"
	weftjs "github.com/weftrt/weft/jetstream"
)

// startSecured starts a server on loopback with the auth and TLS settings
// set on opts (no JetStream: connecting is all these tests do).
func startSecured(t *testing.T, opts server.Options) *server.Server {
	t.Helper()
	opts.Host, opts.NoLog, opts.NoSigs = "127.0.0.1", true, true
	if opts.Port == 0 {
		opts.Port = server.RANDOM_PORT
	}
	srv, err := server.NewServer(&opts)
	require.NoError(t, err)
	srv.Start()
	t.Cleanup(func() { srv.Shutdown(); srv.WaitForShutdown() })
	require.True(t, srv.ReadyForConnections(10*time.Second), "server not ready")
	return srv
}

func serverURL(scheme string, srv *server.Server) string {
	return fmt.Sprintf("%s://%s", scheme, srv.Addr().String())
}

// closedPort returns a loopback address nothing listens on.
func closedPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	return addr
}

// mustFail connects and requires an error, closing the connection the
// code under test should not have returned.
func mustFail(t *testing.T, url string, opts ...nats.Option) error {
	t.Helper()
	nc, err := weftjs.Connect(url, opts...)
	if err == nil {
		nc.Close()
		t.Fatalf("Connect(%q) succeeded, want an error", url)
	}
	return err
}

func TestConnectUnreachableNamesTheCause(t *testing.T) {
	addr := closedPort(t)
	err := mustFail(t, "nats://"+addr)
	require.ErrorIs(t, err, syscall.ECONNREFUSED)
	require.ErrorIs(t, err, nats.ErrNoServers)
	require.Contains(t, err.Error(), "connection refused")
	require.Contains(t, err.Error(), addr)

	// A cluster: every server's cause, not just the last one's.
	addr2 := closedPort(t)
	err = mustFail(t, "nats://"+addr+", nats://"+addr2, nats.DontRandomize())
	require.ErrorIs(t, err, syscall.ECONNREFUSED)
	require.Contains(t, err.Error(), addr+": connect: connection refused")
	require.Contains(t, err.Error(), addr2+": connect: connection refused")
}

func TestConnectRefusesForeignSchemes(t *testing.T) {
	// A server that would accept the connection, were the URL taken as
	// nats:// (as nats.go does).
	srv := startSecured(t, server.Options{})
	for _, scheme := range []string{"http", "https", "foo"} {
		url := serverURL(scheme, srv)
		err := mustFail(t, url)
		require.ErrorIs(t, err, weftjs.ErrBadURL, url)
		require.Contains(t, err.Error(), fmt.Sprintf("scheme %q", scheme))
	}
	// One bad URL in a cluster list spoils it: the operator meant it.
	err := mustFail(t, serverURL("nats", srv)+",http://"+srv.Addr().String())
	require.ErrorIs(t, err, weftjs.ErrBadURL)

	for _, url := range []string{serverURL("nats", srv), serverURL("NATS", srv), srv.Addr().String()} {
		nc, err := weftjs.Connect(url)
		require.NoError(t, err, url)
		nc.Close()
	}
}

func TestConnectErrorsHideSecretsInURLs(t *testing.T) {
	addr := closedPort(t)
	err := mustFail(t, "nats://alice:s3cret@"+addr+",nats://t0ken@"+addr)
	require.NotContains(t, err.Error(), "s3cret")
	require.NotContains(t, err.Error(), "t0ken")
	err = mustFail(t, "http://alice:s3cret@"+addr)
	require.ErrorIs(t, err, weftjs.ErrBadURL)
	require.NotContains(t, err.Error(), "s3cret")
}

func TestConnectAuthorizationViolation(t *testing.T) {
	t.Run("user and password", func(t *testing.T) {
		srv := startSecured(t, server.Options{Username: "alice", Password: "right"})
		url := serverURL("nats", srv)
		for name, opts := range map[string][]nats.Option{
			"missing":        nil,
			"wrong password": {nats.UserInfo("alice", "wrong")},
			"wrong user":     {nats.UserInfo("bob", "right")},
		} {
			err := mustFail(t, url, opts...)
			require.ErrorIs(t, err, nats.ErrAuthorization, name)
			require.Contains(t, strings.ToLower(err.Error()), "authorization violation", name)
		}
		nc, err := weftjs.Connect(url, nats.UserInfo("alice", "right"))
		require.NoError(t, err)
		nc.Close()
	})
	t.Run("token", func(t *testing.T) {
		srv := startSecured(t, server.Options{Authorization: "s3cret"})
		url := serverURL("nats", srv)
		for name, opts := range map[string][]nats.Option{
			"missing": nil,
			"wrong":   {nats.Token("guess")},
		} {
			err := mustFail(t, url, opts...)
			require.ErrorIs(t, err, nats.ErrAuthorization, name)
			require.Contains(t, strings.ToLower(err.Error()), "authorization violation", name)
		}
		nc, err := weftjs.Connect(url, nats.Token("s3cret"))
		require.NoError(t, err)
		nc.Close()
	})
}

func TestConnectUnknownCertificateAuthority(t *testing.T) {
	pki := newTestPKI(t)
	srv := startSecured(t, server.Options{TLS: true, TLSConfig: pki.serverTLS, TLSTimeout: 5})
	for _, scheme := range []string{"nats", "tls"} {
		err := mustFail(t, serverURL(scheme, srv))
		require.ErrorIs(t, err, nats.ErrTLS, scheme)
		var unknown x509.UnknownAuthorityError
		require.ErrorAs(t, err, &unknown, scheme)
		require.Contains(t, err.Error(), "x509", scheme)
	}
	nc, err := weftjs.Connect(serverURL("tls", srv), nats.RootCAs(pki.caFile))
	require.NoError(t, err)
	nc.Close()
}

func TestConnectClientCertificateRequired(t *testing.T) {
	pki := newTestPKI(t)
	tlsConf := pki.serverTLS.Clone()
	tlsConf.ClientCAs, tlsConf.ClientAuth = pki.caPool, tls.RequireAndVerifyClientCert
	srv := startSecured(t, server.Options{TLS: true, TLSVerify: true, TLSConfig: tlsConf, TLSTimeout: 5})
	err := mustFail(t, serverURL("tls", srv), nats.RootCAs(pki.caFile))
	require.ErrorIs(t, err, nats.ErrTLS)
	// The server sends a TLS alert and closes the connection: which of
	// the two the client sees first is a race.
	if !strings.Contains(err.Error(), "certificate required") {
		require.Contains(t, err.Error(), "closed by remote after TLS handshake")
	}

	// Not a server that is still starting: ConnectContext gives up at once.
	ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
	defer cancel()
	_, err = weftjs.ConnectContext(ctx, serverURL("tls", srv), nats.RootCAs(pki.caFile))
	require.ErrorIs(t, err, nats.ErrTLS)
	require.NoError(t, ctx.Err())
}

func TestConnectContextWaitsForTheServer(t *testing.T) {
	addr := closedPort(t)
	_, portStr, err := net.SplitHostPort(addr)
	require.NoError(t, err)
	var port int
	_, err = fmt.Sscan(portStr, &port)
	require.NoError(t, err)

	// Nothing listens: ConnectContext waits out its context and says why
	// it gave up.
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	_, err = weftjs.ConnectContext(ctx, "nats://"+addr)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	require.Contains(t, err.Error(), addr)
	// Why: the last dial's failure, refused, or cut short by the deadline
	// when the deadline fell during a dial (which depends on the load).
	if !errors.Is(err, syscall.ECONNREFUSED) {
		var ne net.Error
		require.True(t, errors.As(err, &ne) && ne.Timeout(), "neither refused nor timed out: %v", err)
	}

	// The server starts while ConnectContext waits.
	ctx, cancel = context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	type result struct {
		nc  *nats.Conn
		err error
	}
	done := make(chan result, 1)
	go func() {
		nc, err := weftjs.ConnectContext(ctx, "nats://"+addr)
		done <- result{nc, err}
	}()
	// It must fail once before the server is there: a stand-in takes the
	// port, hangs up on the first dial, and makes way for the server.
	gate, err := net.Listen("tcp", addr)
	require.NoError(t, err)
	c, err := gate.Accept()
	require.NoError(t, err)
	require.NoError(t, c.Close())
	require.NoError(t, gate.Close())
	startSecured(t, server.Options{Port: port})
	r := <-done
	require.NoError(t, r.err)
	r.nc.Close()
}

func TestConnectContextGivesUpOnRefusedCredentials(t *testing.T) {
	srv := startSecured(t, server.Options{Authorization: "s3cret"})
	// A context that outlives the test: ConnectContext must return
	// because retrying cannot help, not because the context ended.
	ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
	defer cancel()
	_, err := weftjs.ConnectContext(ctx, serverURL("nats", srv), nats.Token("guess"))
	require.ErrorIs(t, err, nats.ErrAuthorization)
	require.NoError(t, ctx.Err())

	_, err = weftjs.ConnectContext(ctx, "http://"+srv.Addr().String())
	require.ErrorIs(t, err, weftjs.ErrBadURL)
}

// testPKI is a throwaway certificate authority and a server certificate
// it signed for 127.0.0.1, made for one test.
type testPKI struct {
	caFile    string // the CA certificate, PEM
	caPool    *x509.CertPool
	serverTLS *tls.Config
}

func newTestPKI(t *testing.T) testPKI {
	t.Helper()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	caTmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "weft test CA"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		IsCA:                  true,
		KeyUsage:              x509.KeyUsageCertSign,
		BasicConstraintsValid: true,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	require.NoError(t, err)
	ca, err := x509.ParseCertificate(caDER)
	require.NoError(t, err)

	srvKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	srvTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(2),
		Subject:      pkix.Name{CommonName: "127.0.0.1"},
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1)},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	srvDER, err := x509.CreateCertificate(rand.Reader, srvTmpl, ca, &srvKey.PublicKey, caKey)
	require.NoError(t, err)

	caFile := filepath.Join(t.TempDir(), "ca.pem")
	require.NoError(t, os.WriteFile(caFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}), 0o600))
	pool := x509.NewCertPool()
	pool.AddCert(ca)
	return testPKI{
		caFile: caFile,
		caPool: pool,
		serverTLS: &tls.Config{
			MinVersion:   tls.VersionTLS12,
			Certificates: []tls.Certificate{{Certificate: [][]byte{srvDER}, PrivateKey: srvKey}},
		},
	}
}
