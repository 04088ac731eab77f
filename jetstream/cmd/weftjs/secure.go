package main

import (
	"crypto/x509"
	"errors"
	"flag"
	"fmt"
	"strings"

	"github.com/nats-io/nats.go"
)

// secure holds the credentials and TLS files to connect with, taken the
// way the nats CLI takes them: the same flag names, each falling back to
// the CLI's environment variable when the flag is not given. So a shell
// set up for `nats` (NATS_CREDS, NATS_CA, ...) works for weftjs too, and
// a password or token need not appear in the process list.
type secure struct {
	user, password, token string
	creds, nkey           string // files: a JWT credentials file, an nkey seed
	cert, key, ca         string // PEM files: client certificate and key, CA
	tlsFirst              bool

	// from names where each setting came from, by flag name: "-user" or
	// "NATS_USER", for the error messages.
	from map[string]string
}

// secureSetting is one string setting: its flag, its environment variable
// (the nats CLI's), and where its value goes.
type secureSetting struct {
	flag, env, usage string
	dst              *string
}

func (s *secure) settings() []secureSetting {
	return []secureSetting{
		{"user", "NATS_USER", "user name (with -password)", &s.user},
		{"password", "NATS_PASSWORD", "password (prefer the environment variable: flags show in the process list)", &s.password},
		{"token", "NATS_TOKEN", "authentication token", &s.token},
		{"creds", "NATS_CREDS", "user credentials file (JWT and nkey seed)", &s.creds},
		{"nkey", "NATS_NKEY", "user nkey seed file", &s.nkey},
		{"tlscert", "NATS_CERT", "TLS client certificate file (PEM, with -tlskey)", &s.cert},
		{"tlskey", "NATS_KEY", "TLS client private key file (PEM)", &s.key},
		{"tlsca", "NATS_CA", "TLS certificate authority file (PEM) to verify the server with", &s.ca},
	}
}

// register defines the flags on fs. Their defaults stay empty, so that
// -help never prints a secret taken from the environment.
func (s *secure) register(fs *flag.FlagSet) {
	for _, st := range s.settings() {
		fs.StringVar(st.dst, st.flag, "", st.usage+" [$"+st.env+"]")
	}
	fs.BoolVar(&s.tlsFirst, "tlsfirst", false, "perform the TLS handshake before the server's greeting (server's handshake_first)")
}

// fromEnv fills each setting whose flag fs did not see from its
// environment variable, looked up with lookup (os.LookupEnv). A flag
// given, even empty, wins over the environment.
func (s *secure) fromEnv(fs *flag.FlagSet, lookup func(string) (string, bool)) {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	s.from = map[string]string{}
	for _, st := range s.settings() {
		if set[st.flag] {
			s.from[st.flag] = "-" + st.flag
		} else if v, ok := lookup(st.env); ok && v != "" {
			*st.dst = v
			s.from[st.flag] = st.env
		}
	}
}

// name says where the setting of flag came from, for a message.
func (s *secure) name(flag string) string {
	if n := s.from[flag]; n != "" {
		return n
	}
	return "-" + flag
}

// given lists the settings that were given.
func (s *secure) given() []string {
	var g []string
	for _, st := range s.settings() {
		if *st.dst != "" {
			g = append(g, s.name(st.flag))
		}
	}
	if s.tlsFirst {
		g = append(g, "-tlsfirst")
	}
	return g
}

// options returns the nats.go options for the settings, checking them
// first: one way to authenticate at most, a password with a user, a
// certificate with its key, files that can be read and parsed. remote is
// false when weftjs starts its own server, which needs none of them: the
// environment's settings are then ignored, and flags refused.
func (s *secure) options(remote bool) ([]nats.Option, error) {
	if !remote {
		// Variables set for the nats CLI are for other servers; flags
		// given with no -url are a mistake worth naming.
		var flags []string
		for _, g := range s.given() {
			if strings.HasPrefix(g, "-") {
				flags = append(flags, g)
			}
		}
		if len(flags) > 0 {
			return nil, fmt.Errorf("%s given but no -url: the embedded server needs no credentials or TLS; give -url for a secured server", strings.Join(flags, ", "))
		}
		return nil, nil
	}
	var ways []string
	for _, f := range []string{"user", "token", "creds", "nkey"} {
		if s.value(f) != "" {
			ways = append(ways, s.name(f))
		}
	}
	if len(ways) > 1 {
		return nil, fmt.Errorf("%s: more than one way to authenticate; give one (unset the environment variable or the flag you do not mean)", strings.Join(ways, " and "))
	}
	if s.password != "" && s.user == "" {
		return nil, fmt.Errorf("%s given without -user (NATS_USER)", s.name("password"))
	}
	if (s.cert == "") != (s.key == "") {
		return nil, errors.New("-tlscert (NATS_CERT) and -tlskey (NATS_KEY) go together: give both, or neither")
	}

	var opts []nats.Option
	// add keeps opt after trying it on a scratch nats.Options, so that a
	// file that is missing or malformed is reported now, by the setting
	// that named it, rather than at connect.
	add := func(setting string, opt nats.Option, try func(o *nats.Options) error) error {
		var o nats.Options
		err := opt(&o)
		if err == nil && try != nil {
			err = try(&o)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", setting, err)
		}
		opts = append(opts, opt)
		return nil
	}
	var err error
	switch {
	case s.user != "":
		err = add(s.name("user"), nats.UserInfo(s.user, s.password), nil)
	case s.token != "":
		err = add(s.name("token"), nats.Token(s.token), nil)
	case s.creds != "":
		// nats.go reads the file at each connect; reading it once here,
		// and signing a nonce with its seed, finds a bad file at start.
		err = add(s.name("creds")+" "+s.creds, nats.UserCredentials(s.creds), func(o *nats.Options) error {
			if _, err := o.UserJWT(); err != nil {
				return err
			}
			_, err := o.SignatureCB([]byte("weftjs"))
			return err
		})
	case s.nkey != "":
		var opt nats.Option
		if opt, err = nats.NkeyOptionFromSeed(s.nkey); err == nil {
			err = add(s.name("nkey"), opt, nil)
		} else {
			err = fmt.Errorf("%s %s: %w", s.name("nkey"), s.nkey, err)
		}
	}
	if err != nil {
		return nil, err
	}
	if s.cert != "" {
		if err := add(s.name("tlscert")+" and "+s.name("tlskey"), nats.ClientCert(s.cert, s.key), func(o *nats.Options) error {
			_, err := o.TLSCertCB()
			return err
		}); err != nil {
			return nil, err
		}
	}
	if s.ca != "" {
		if err := add(s.name("tlsca")+" "+s.ca, nats.RootCAs(s.ca), nil); err != nil {
			return nil, err
		}
	}
	if s.tlsFirst {
		opts = append(opts, nats.TLSHandshakeFirst())
	}
	return opts, nil
}

func (s *secure) value(flag string) string {
	for _, st := range s.settings() {
		if st.flag == flag {
			return *st.dst
		}
	}
	return ""
}

// explain adds to a connect error the setting that most likely mends it.
func explain(err error) error {
	var unknownCA x509.UnknownAuthorityError
	var hostname x509.HostnameError
	var hint string
	switch {
	case errors.Is(err, nats.ErrAuthorization):
		hint = "the server refused the credentials, or needs some: check -creds, -nkey, -user and -password, or -token (or NATS_CREDS, NATS_NKEY, NATS_USER and NATS_PASSWORD, NATS_TOKEN)"
	case errors.As(err, &unknownCA):
		hint = "the server's certificate is signed by an authority this process does not trust: give its CA with -tlsca (NATS_CA)"
	case errors.As(err, &hostname):
		hint = "the server's certificate does not name the host in -url: connect with a name the certificate holds"
	case errors.Is(err, nats.ErrSecureConnWanted):
		hint = "the server does not offer TLS: drop -tlsca, -tlscert, -tlskey and -tlsfirst, or use the server's TLS port"
	case errors.Is(err, nats.ErrTLS) && (strings.Contains(err.Error(), "closed by remote after TLS handshake") ||
		strings.Contains(err.Error(), "remote error: tls:") && strings.Contains(err.Error(), "certificate")):
		// A server that refuses the client's certificate, or its lack of
		// one, says so in a TLS alert, or closes the connection before
		// the alert can be read.
		hint = "the server may want a client certificate it trusts: give -tlscert and -tlskey (NATS_CERT, NATS_KEY)"
	default:
		return err
	}
	return fmt.Errorf("%w\n  (%s)", err, hint)
}
