package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"flag"
	"io"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/nats-io/jwt/v2"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nkeys"
	"github.com/stretchr/testify/require"
	weftjs "github.com/weftrt/weft/jetstream"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// parseSecure parses args as weftjs's credential and TLS flags, with env
// as the environment.
func parseSecure(t *testing.T, env map[string]string, args ...string) *secure {
	t.Helper()
	var s secure
	fs := flag.NewFlagSet("weftjs", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	s.register(fs)
	require.NoError(t, fs.Parse(args))
	s.fromEnv(fs, func(k string) (string, bool) { v, ok := env[k]; return v, ok })
	return &s
}

func TestSecureFlagsWinOverTheEnvironment(t *testing.T) {
	s := parseSecure(t, map[string]string{
		"NATS_USER": "bob", "NATS_PASSWORD": "pw", "NATS_CA": "ca.pem", "NATS_TOKEN": "",
	}, "-user", "alice")
	require.Equal(t, "alice", s.user)
	require.Equal(t, "pw", s.password)
	require.Equal(t, "ca.pem", s.ca)
	require.Empty(t, s.token)
	require.Equal(t, "-user", s.name("user"))
	require.Equal(t, "NATS_PASSWORD", s.name("password"))

	// A flag given empty unsets what the environment holds.
	s = parseSecure(t, map[string]string{"NATS_CREDS": "x.creds"}, "-creds", "")
	require.Empty(t, s.creds)
}

func TestSecureRejectsSettingsThatCannotWork(t *testing.T) {
	pki := newPKI(t)
	missing := filepath.Join(t.TempDir(), "missing")
	garbage := filepath.Join(t.TempDir(), "garbage")
	require.NoError(t, os.WriteFile(garbage, []byte("not a key"), 0o600))
	for _, tc := range []struct {
		name   string
		env    map[string]string
		args   []string
		remote bool
		want   []string // in the message
	}{
		{"two ways", map[string]string{"NATS_USER": "bob"}, []string{"-creds", "x.creds"}, true, []string{"NATS_USER and -creds", "more than one way"}},
		{"token and nkey", nil, []string{"-token", "t", "-nkey", "seed"}, true, []string{"-token and -nkey"}},
		{"password alone", map[string]string{"NATS_PASSWORD": "pw"}, nil, true, []string{"NATS_PASSWORD given without -user"}},
		{"cert without key", nil, []string{"-tlscert", pki.clientCert}, true, []string{"-tlscert (NATS_CERT) and -tlskey (NATS_KEY) go together"}},
		{"missing creds", nil, []string{"-creds", missing}, true, []string{"-creds " + missing, "no such file"}},
		{"garbage creds", nil, []string{"-creds", garbage}, true, []string{"-creds " + garbage}},
		{"missing nkey", map[string]string{"NATS_NKEY": missing}, nil, true, []string{"NATS_NKEY " + missing, "no such file"}},
		{"garbage nkey", nil, []string{"-nkey", garbage}, true, []string{"-nkey " + garbage}},
		{"missing CA", map[string]string{"NATS_CA": missing}, nil, true, []string{"NATS_CA " + missing}},
		{"key is not a cert", nil, []string{"-tlscert", pki.clientKey, "-tlskey", pki.clientKey}, true, []string{"-tlscert and -tlskey"}},
		{"embedded server", map[string]string{"NATS_TOKEN": "t"}, []string{"-tlsca", "ca.pem"}, false, []string{"-tlsca given but no -url"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parseSecure(t, tc.env, tc.args...).options(tc.remote)
			require.Error(t, err)
			for _, w := range tc.want {
				require.Contains(t, err.Error(), w)
			}
		})
	}
	// Nothing given: nothing to add, with or without a server of our own.
	for _, remote := range []bool{false, true} {
		opts, err := parseSecure(t, nil).options(remote)
		require.NoError(t, err)
		require.Empty(t, opts)
	}
	// A shell set up for the nats CLI does not stop the embedded server.
	opts, err := parseSecure(t, map[string]string{"NATS_CREDS": missing, "NATS_USER": "bob"}).options(false)
	require.NoError(t, err)
	require.Empty(t, opts)
}

// startServer starts a server on loopback with opts' auth and TLS.
func startServer(t *testing.T, opts server.Options) string {
	t.Helper()
	opts.Host, opts.Port, opts.NoLog, opts.NoSigs = "127.0.0.1", server.RANDOM_PORT, true, true
	srv, err := server.NewServer(&opts)
	require.NoError(t, err)
	srv.Start()
	t.Cleanup(func() { srv.Shutdown(); srv.WaitForShutdown() })
	require.True(t, srv.ReadyForConnections(10*time.Second), "server not ready")
	return "nats://" + srv.Addr().String()
}

// connectWith connects to url with the options weftjs builds from env
// and args, as run does.
func connectWith(t *testing.T, url string, env map[string]string, args ...string) error {
	t.Helper()
	opts, err := parseSecure(t, env, args...).options(true)
	require.NoError(t, err)
	nc, err := weftjs.Connect(url, opts...)
	if err != nil {
		return explain(err)
	}
	nc.Close()
	return nil
}

func TestSecureConnects(t *testing.T) {
	pki := newPKI(t)
	t.Run("user and password", func(t *testing.T) {
		url := startServer(t, server.Options{Username: "alice", Password: "pw"})
		require.NoError(t, connectWith(t, url, map[string]string{"NATS_USER": "alice", "NATS_PASSWORD": "pw"}))
		err := connectWith(t, url, map[string]string{"NATS_USER": "alice", "NATS_PASSWORD": "wrong"})
		require.ErrorIs(t, err, nats.ErrAuthorization)
		require.Contains(t, err.Error(), "check -creds")
		require.ErrorIs(t, connectWith(t, url, nil), nats.ErrAuthorization)
	})
	t.Run("token", func(t *testing.T) {
		url := startServer(t, server.Options{Authorization: "s3cret"})
		require.NoError(t, connectWith(t, url, nil, "-token", "s3cret"))
		require.NoError(t, connectWith(t, url, map[string]string{"NATS_TOKEN": "s3cret"}))
		require.ErrorIs(t, connectWith(t, url, nil, "-token", "guess"), nats.ErrAuthorization)
	})
	t.Run("nkey seed", func(t *testing.T) {
		kp, err := nkeys.CreateUser()
		require.NoError(t, err)
		pub, err := kp.PublicKey()
		require.NoError(t, err)
		seed, err := kp.Seed()
		require.NoError(t, err)
		file := filepath.Join(t.TempDir(), "user.nk")
		require.NoError(t, os.WriteFile(file, seed, 0o600))
		url := startServer(t, server.Options{Nkeys: []*server.NkeyUser{{Nkey: pub}}})
		require.NoError(t, connectWith(t, url, nil, "-nkey", file))
		require.NoError(t, connectWith(t, url, map[string]string{"NATS_NKEY": file}))
		require.ErrorIs(t, connectWith(t, url, nil), nats.ErrAuthorization)
	})
	t.Run("creds", func(t *testing.T) {
		url, creds := startOperatorServer(t)
		require.NoError(t, connectWith(t, url, nil, "-creds", creds))
		require.NoError(t, connectWith(t, url, map[string]string{"NATS_CREDS": creds}))
		require.ErrorIs(t, connectWith(t, url, nil), nats.ErrAuthorization)
	})
	t.Run("TLS with a private CA", func(t *testing.T) {
		url := startServer(t, server.Options{TLS: true, TLSConfig: pki.serverTLS(false), TLSTimeout: 5})
		require.NoError(t, connectWith(t, url, nil, "-tlsca", pki.ca))
		require.NoError(t, connectWith(t, url, map[string]string{"NATS_CA": pki.ca}))
		err := connectWith(t, url, nil)
		require.ErrorIs(t, err, nats.ErrTLS)
		require.Contains(t, err.Error(), "x509")
		require.Contains(t, err.Error(), "give its CA with -tlsca")

		// The certificate names 127.0.0.1, not localhost.
		_, port, _ := net.SplitHostPort(url[len("nats://"):])
		err = connectWith(t, "nats://localhost:"+port, nil, "-tlsca", pki.ca)
		var hostname x509.HostnameError
		require.ErrorAs(t, err, &hostname)
		require.Contains(t, err.Error(), "does not name the host")
	})
	t.Run("mutual TLS", func(t *testing.T) {
		url := startServer(t, server.Options{TLS: true, TLSVerify: true, TLSConfig: pki.serverTLS(true), TLSTimeout: 5})
		require.NoError(t, connectWith(t, url, nil, "-tlsca", pki.ca, "-tlscert", pki.clientCert, "-tlskey", pki.clientKey))
		require.NoError(t, connectWith(t, url, map[string]string{"NATS_CA": pki.ca, "NATS_CERT": pki.clientCert, "NATS_KEY": pki.clientKey}))
		err := connectWith(t, url, nil, "-tlsca", pki.ca)
		require.ErrorIs(t, err, nats.ErrTLS)
		require.Contains(t, err.Error(), "give -tlscert and -tlskey")
	})
	t.Run("TLS first", func(t *testing.T) {
		url := startServer(t, server.Options{TLS: true, TLSHandshakeFirst: true, TLSConfig: pki.serverTLS(false), TLSTimeout: 5})
		require.NoError(t, connectWith(t, url, nil, "-tlsca", pki.ca, "-tlsfirst"))
	})
	t.Run("TLS wanted, not offered", func(t *testing.T) {
		url := startServer(t, server.Options{})
		err := connectWith(t, url, nil, "-tlsca", pki.ca)
		require.ErrorIs(t, err, nats.ErrSecureConnWanted)
		require.Contains(t, err.Error(), "does not offer TLS")
	})
}

// startOperatorServer starts a server in operator (JWT) mode with one
// account, and returns its URL and a creds file for a user of it.
func startOperatorServer(t *testing.T) (url, creds string) {
	t.Helper()
	op, err := nkeys.CreateOperator()
	require.NoError(t, err)
	opPub, err := op.PublicKey()
	require.NoError(t, err)
	opClaims := jwt.NewOperatorClaims(opPub)
	opJWT, err := opClaims.Encode(op)
	require.NoError(t, err)
	opClaims, err = jwt.DecodeOperatorClaims(opJWT)
	require.NoError(t, err)

	acc, err := nkeys.CreateAccount()
	require.NoError(t, err)
	accPub, err := acc.PublicKey()
	require.NoError(t, err)
	accJWT, err := jwt.NewAccountClaims(accPub).Encode(op)
	require.NoError(t, err)

	user, err := nkeys.CreateUser()
	require.NoError(t, err)
	userPub, err := user.PublicKey()
	require.NoError(t, err)
	userJWT, err := jwt.NewUserClaims(userPub).Encode(acc)
	require.NoError(t, err)
	seed, err := user.Seed()
	require.NoError(t, err)
	file, err := jwt.FormatUserConfig(userJWT, seed)
	require.NoError(t, err)
	creds = filepath.Join(t.TempDir(), "user.creds")
	require.NoError(t, os.WriteFile(creds, file, 0o600))

	resolver := &server.MemAccResolver{}
	require.NoError(t, resolver.Store(accPub, accJWT))
	url = startServer(t, server.Options{TrustedOperators: []*jwt.OperatorClaims{opClaims}, AccountResolver: resolver})
	return url, creds
}

// pki is a throwaway CA with a server certificate for 127.0.0.1 and a
// client certificate, the CA and the client's files in a test directory.
type pki struct {
	ca, clientCert, clientKey string
	caPool                    *x509.CertPool
	server                    tls.Certificate
}

func (p pki) serverTLS(verifyClients bool) *tls.Config {
	c := &tls.Config{MinVersion: tls.VersionTLS12, Certificates: []tls.Certificate{p.server}}
	if verifyClients {
		c.ClientCAs, c.ClientAuth = p.caPool, tls.RequireAndVerifyClientCert
	}
	return c
}

func newPKI(t *testing.T) pki {
	t.Helper()
	dir := t.TempDir()
	write := func(name, typ string, der []byte) string {
		f := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(f, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600))
		return f
	}
	newKey := func() *ecdsa.PrivateKey {
		k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		require.NoError(t, err)
		return k
	}
	caKey := newKey()
	caTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "weftjs test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, KeyUsage: x509.KeyUsageCertSign, BasicConstraintsValid: true,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	require.NoError(t, err)
	ca, err := x509.ParseCertificate(caDER)
	require.NoError(t, err)
	leaf := func(serial int64, name string, usage x509.ExtKeyUsage) ([]byte, *ecdsa.PrivateKey) {
		k := newKey()
		tmpl := &x509.Certificate{
			SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: name},
			NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
			KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{usage},
		}
		if usage == x509.ExtKeyUsageServerAuth {
			tmpl.IPAddresses = []net.IP{net.IPv4(127, 0, 0, 1)}
		}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &k.PublicKey, caKey)
		require.NoError(t, err)
		return der, k
	}
	srvDER, srvKey := leaf(2, "127.0.0.1", x509.ExtKeyUsageServerAuth)
	cliDER, cliKey := leaf(3, "weftjs", x509.ExtKeyUsageClientAuth)
	cliKeyDER, err := x509.MarshalECPrivateKey(cliKey)
	require.NoError(t, err)
	pool := x509.NewCertPool()
	pool.AddCert(ca)
	return pki{
		ca:         write("ca.pem", "CERTIFICATE", caDER),
		clientCert: write("client.pem", "CERTIFICATE", cliDER),
		clientKey:  write("client-key.pem", "EC PRIVATE KEY", cliKeyDER),
		caPool:     pool,
		server:     tls.Certificate{Certificate: [][]byte{srvDER}, PrivateKey: srvKey},
	}
}
