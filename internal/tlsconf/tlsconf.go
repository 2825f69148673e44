// Package tlsconf builds the TLS server configuration from Redis's tls-*
// settings, and wraps a listener so that each connection's handshake runs in
// that connection's own goroutine under a deadline.
package tlsconf

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/cairndb/cairn/internal/config"
)

// Build returns the server's tls.Config for the settings t, or an error
// naming the setting at fault.
func Build(t config.TLS) (*tls.Config, error) {
	if t.CertFile == "" || t.KeyFile == "" {
		return nil, errors.New("tls-port is set: tls-cert-file and tls-key-file must be specified")
	}
	cert, err := loadKeyPair(t.CertFile, t.KeyFile, t.KeyFilePass)
	if err != nil {
		return nil, err
	}
	cfg := &tls.Config{Certificates: []tls.Certificate{cert}}
	if t.CACertFile == "" && t.CACertDir == "" {
		if t.AuthClients != config.TLSAuthNo {
			return nil, errors.New("either tls-ca-cert-file or tls-ca-cert-dir must be specified when tls-auth-clients is yes or optional")
		}
	} else {
		pool, err := loadCAs(t.CACertFile, t.CACertDir)
		if err != nil {
			return nil, err
		}
		cfg.ClientCAs = pool
	}
	switch t.AuthClients {
	case config.TLSAuthYes:
		cfg.ClientAuth = tls.RequireAndVerifyClientCert
	case config.TLSAuthOptional:
		cfg.ClientAuth = tls.VerifyClientCertIfGiven
	default:
		cfg.ClientAuth = tls.NoClientCert
	}
	if cfg.MinVersion, cfg.MaxVersion, err = protocols(t.Protocols); err != nil {
		return nil, err
	}
	if t.Ciphers != "" {
		if cfg.CipherSuites, err = ciphers(t.Ciphers); err != nil {
			return nil, err
		}
	}
	if err := ciphersuites(t.Ciphersuites); err != nil {
		return nil, err
	}
	// tls-prefer-server-ciphers has nothing to set: Go's server always
	// chooses the suite by its own order of preference.
	return cfg, nil
}

// loadKeyPair reads the certificate chain and the private key, decrypting
// a legacy encrypted PEM key ("Proc-Type: 4,ENCRYPTED") with pass.
func loadKeyPair(certFile, keyFile, pass string) (tls.Certificate, error) {
	certPEM, err := os.ReadFile(certFile)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("tls-cert-file: %w", err)
	}
	keyPEM, err := os.ReadFile(keyFile)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("tls-key-file: %w", err)
	}
	block, _ := pem.Decode(keyPEM)
	if block == nil {
		return tls.Certificate{}, fmt.Errorf("tls-key-file %s: no PEM data", keyFile)
	}
	switch {
	case block.Type == "ENCRYPTED PRIVATE KEY":
		return tls.Certificate{}, fmt.Errorf("tls-key-file %s: an encrypted PKCS#8 key is not supported; "+
			"decrypt it (openssl pkey -in key.pem -out plain.pem) or re-encrypt it in the legacy PEM format (openssl rsa -aes256 / openssl ec -aes256)", keyFile)
	//nolint:staticcheck // the legacy PEM encryption is what tls-key-file-pass can decrypt
	case x509.IsEncryptedPEMBlock(block):
		if pass == "" {
			return tls.Certificate{}, fmt.Errorf("tls-key-file %s is encrypted: set tls-key-file-pass", keyFile)
		}
		//nolint:staticcheck // see above
		der, err := x509.DecryptPEMBlock(block, []byte(pass))
		if err != nil {
			return tls.Certificate{}, fmt.Errorf("tls-key-file %s: decrypt with tls-key-file-pass: %w", keyFile, err)
		}
		keyPEM = pem.EncodeToMemory(&pem.Block{Type: block.Type, Bytes: der})
	}
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("tls-cert-file %s / tls-key-file %s: %w", certFile, keyFile, err)
	}
	return cert, nil
}

// loadCAs reads the trusted client CAs from a PEM file and from every file
// of a directory that holds PEM certificates.
func loadCAs(file, dir string) (*x509.CertPool, error) {
	pool := x509.NewCertPool()
	if file != "" {
		data, err := os.ReadFile(file)
		if err != nil {
			return nil, fmt.Errorf("tls-ca-cert-file: %w", err)
		}
		if !pool.AppendCertsFromPEM(data) {
			return nil, fmt.Errorf("tls-ca-cert-file %s: no PEM certificate", file)
		}
	}
	if dir != "" {
		entries, err := os.ReadDir(dir)
		if err != nil {
			return nil, fmt.Errorf("tls-ca-cert-dir: %w", err)
		}
		found := false
		for _, e := range entries {
			if !e.Type().IsRegular() && e.Type()&os.ModeSymlink == 0 {
				continue
			}
			data, err := os.ReadFile(filepath.Join(dir, e.Name()))
			if err != nil {
				continue
			}
			if pool.AppendCertsFromPEM(data) {
				found = true
			}
		}
		if !found {
			return nil, fmt.Errorf("tls-ca-cert-dir %s: no PEM certificate in it", dir)
		}
	}
	return pool, nil
}

var protocolVersions = map[string]uint16{
	"tlsv1":   tls.VersionTLS10,
	"tlsv1.1": tls.VersionTLS11,
	"tlsv1.2": tls.VersionTLS12,
	"tlsv1.3": tls.VersionTLS13,
}

// protocols parses tls-protocols (empty: TLSv1.2 and TLSv1.3, as Redis).
// Go takes a range of versions: the lowest and the highest named.
func protocols(s string) (lo, hi uint16, err error) {
	words := strings.Fields(s)
	if len(words) == 0 {
		return tls.VersionTLS12, tls.VersionTLS13, nil
	}
	for _, w := range words {
		v, ok := protocolVersions[strings.ToLower(w)]
		if !ok {
			return 0, 0, fmt.Errorf("invalid tls-protocols specified. Use a combination of 'TLSv1', 'TLSv1.1', 'TLSv1.2' and 'TLSv1.3' (got %q)", w)
		}
		if lo == 0 || v < lo {
			lo = v
		}
		hi = max(hi, v)
	}
	return lo, hi, nil
}

// ciphers parses tls-ciphers, OpenSSL's colon-separated list for TLS 1.2
// and below, into Go's suites. Each name must be a suite Go implements, by
// its OpenSSL or its IANA name; OpenSSL's keywords (HIGH, !aNULL, ...) are
// refused, since Go cannot honour them.
func ciphers(s string) ([]uint16, error) {
	byName := map[string]uint16{}
	for _, cs := range append(tls.CipherSuites(), tls.InsecureCipherSuites()...) {
		byName[cs.Name] = cs.ID
		if o := opensslName(cs.Name); o != "" {
			byName[o] = cs.ID
		}
	}
	var ids []uint16
	for _, name := range strings.FieldsFunc(s, func(r rune) bool { return r == ':' || r == ',' || r == ' ' }) {
		id, ok := byName[name]
		if !ok {
			return nil, fmt.Errorf("tls-ciphers: %q is not a cipher suite Cairn supports; name suites one by one, e.g. ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES128-GCM-SHA256", name)
		}
		ids = append(ids, id)
	}
	return ids, nil
}

// opensslName maps an IANA suite name to OpenSSL's, for the ECDHE suites
// (the ones configurations name), or "".
func opensslName(iana string) string {
	rest, ok := strings.CutPrefix(iana, "TLS_ECDHE_")
	if !ok {
		return ""
	}
	auth, cipher, ok := strings.Cut(rest, "_WITH_")
	if !ok {
		return ""
	}
	var c string
	switch {
	case strings.HasPrefix(cipher, "AES_128_GCM_SHA256"):
		c = "AES128-GCM-SHA256"
	case strings.HasPrefix(cipher, "AES_256_GCM_SHA384"):
		c = "AES256-GCM-SHA384"
	case strings.HasPrefix(cipher, "CHACHA20_POLY1305"):
		c = "CHACHA20-POLY1305"
	case cipher == "AES_128_CBC_SHA256":
		c = "AES128-SHA256"
	case cipher == "AES_128_CBC_SHA":
		c = "AES128-SHA"
	case cipher == "AES_256_CBC_SHA":
		c = "AES256-SHA"
	default:
		return ""
	}
	return "ECDHE-" + auth + "-" + c
}

// tls13Suites is every TLS 1.3 suite Go offers; it cannot be narrowed.
var tls13Suites = []string{"TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384", "TLS_CHACHA20_POLY1305_SHA256"}

// ciphersuites checks tls-ciphersuites (TLS 1.3). Go always offers its
// three TLS 1.3 suites, so a list is accepted only if it names them all: a
// narrower one would be silently ignored.
func ciphersuites(s string) error {
	if s == "" {
		return nil
	}
	named := map[string]bool{}
	for _, n := range strings.Split(s, ":") {
		if !contains(tls13Suites, n) {
			return fmt.Errorf("tls-ciphersuites: %q is not a TLS 1.3 suite (%s)", n, strings.Join(tls13Suites, ":"))
		}
		named[n] = true
	}
	if len(named) != len(tls13Suites) {
		return fmt.Errorf("tls-ciphersuites: Go's TLS 1.3 always offers %s and cannot be narrowed; leave tls-ciphersuites empty or name all three", strings.Join(tls13Suites, ":"))
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// HandshakeTimeout bounds a TLS handshake: a client that does not finish it
// in time (a slowloris) is closed.
const HandshakeTimeout = 10 * time.Second

// Live holds the TLS configuration that new connections get; a CONFIG SET
// of a tls-* setting replaces it, and connections already open keep theirs.
// The zero value holds none; it is safe for concurrent use.
type Live struct{ cur atomic.Pointer[tls.Config] }

// NewLive returns a Live holding cfg.
func NewLive(cfg *tls.Config) *Live {
	l := &Live{}
	l.Set(cfg)
	return l
}

// Get returns the current configuration.
func (l *Live) Get() *tls.Config { return l.cur.Load() }

// Set replaces the configuration for connections accepted from now on.
func (l *Live) Set(cfg *tls.Config) { l.cur.Store(cfg) }

// NewListener wraps ln so that the connections it accepts speak TLS with
// live's configuration at the time. Accept returns at once; each connection
// handshakes on its first read or write, in the goroutine that serves it,
// within timeout. A failed handshake is logged to log (if not nil) with
// Redis's line.
func NewListener(ln net.Listener, live *Live, timeout time.Duration, log *slog.Logger) net.Listener {
	return &listener{Listener: ln, live: live, timeout: timeout, log: log}
}

type listener struct {
	net.Listener
	live    *Live
	timeout time.Duration
	log     *slog.Logger
}

func (l *listener) Accept() (net.Conn, error) {
	nc, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &Conn{Conn: tls.Server(nc, l.live.Get()), timeout: l.timeout, log: l.log}, nil
}

// Conn is a server-side TLS connection whose handshake runs, bounded by a
// timeout, the first time it is read or written.
type Conn struct {
	*tls.Conn
	timeout time.Duration
	log     *slog.Logger
	done    atomic.Bool
}

// handshake completes the TLS handshake if it has not been, within the
// timeout; the connection's deadlines are left to the server. Concurrent
// callers are serialised by tls.Conn's own handshake lock.
func (c *Conn) handshake() error {
	if c.done.Load() {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), c.timeout)
	defer cancel()
	if err := c.Conn.HandshakeContext(ctx); err != nil {
		if c.log != nil {
			c.log.Warn(fmt.Sprintf("Error accepting a client connection: %v (addr=%s laddr=%s)", err, c.RemoteAddr(), c.LocalAddr()))
		}
		return err
	}
	c.done.Store(true)
	return nil
}

// Read handshakes first if needed.
func (c *Conn) Read(p []byte) (int, error) {
	if err := c.handshake(); err != nil {
		return 0, err
	}
	return c.Conn.Read(p)
}

// Write handshakes first if needed.
func (c *Conn) Write(p []byte) (int, error) {
	if err := c.handshake(); err != nil {
		return 0, err
	}
	return c.Conn.Write(p)
}
