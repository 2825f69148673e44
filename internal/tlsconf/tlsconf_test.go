package tlsconf

import (
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cairndb/cairn/internal/config"
	"github.com/cairndb/cairn/internal/tlsconf/tlstest"
)

func certs(t *testing.T) (*tlstest.Files, config.TLS) {
	t.Helper()
	f, err := tlstest.Generate(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return f, config.TLS{Port: 1, CertFile: f.ServerCert, KeyFile: f.ServerKey, CACertFile: f.CACert, AuthClients: config.TLSAuthYes}
}

func TestBuild(t *testing.T) {
	f, base := certs(t)
	caDir := t.TempDir()
	data, _ := os.ReadFile(f.CACert)
	if err := os.WriteFile(filepath.Join(caDir, "ca.pem"), data, 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		mod     func(*config.TLS)
		wantErr string
		check   func(*tls.Config) bool
	}{
		{"defaults", func(*config.TLS) {}, "", func(c *tls.Config) bool {
			return c.ClientAuth == tls.RequireAndVerifyClientCert && c.MinVersion == tls.VersionTLS12 && c.MaxVersion == tls.VersionTLS13
		}},
		{"optional", func(c *config.TLS) { c.AuthClients = config.TLSAuthOptional }, "", func(c *tls.Config) bool { return c.ClientAuth == tls.VerifyClientCertIfGiven }},
		{"no, no CA", func(c *config.TLS) { c.AuthClients = config.TLSAuthNo; c.CACertFile = "" }, "", func(c *tls.Config) bool { return c.ClientAuth == tls.NoClientCert }},
		{"CA dir", func(c *config.TLS) { c.CACertFile = ""; c.CACertDir = caDir }, "", func(c *tls.Config) bool { return c.ClientCAs != nil }},
		{"protocols", func(c *config.TLS) { c.Protocols = "tlsv1.3" }, "", func(c *tls.Config) bool { return c.MinVersion == tls.VersionTLS13 }},
		{"ciphers", func(c *config.TLS) { c.Ciphers = "ECDHE-ECDSA-AES128-GCM-SHA256:TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384" }, "", func(c *tls.Config) bool {
			return len(c.CipherSuites) == 2 && c.CipherSuites[0] == tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256
		}},
		{"ciphersuites all", func(c *config.TLS) {
			c.Ciphersuites = "TLS_CHACHA20_POLY1305_SHA256:TLS_AES_256_GCM_SHA384:TLS_AES_128_GCM_SHA256"
		}, "", nil},
		{"no cert", func(c *config.TLS) { c.CertFile = "" }, "tls-cert-file and tls-key-file must be specified", nil},
		{"missing cert", func(c *config.TLS) { c.CertFile = "/nonexistent.crt" }, "tls-cert-file", nil},
		{"no CA", func(c *config.TLS) { c.CACertFile = "" }, "either tls-ca-cert-file or tls-ca-cert-dir", nil},
		{"bad CA", func(c *config.TLS) { c.CACertFile = f.ServerKey }, "no PEM certificate", nil},
		{"empty CA dir", func(c *config.TLS) { c.CACertFile = ""; c.CACertDir = t.TempDir() }, "no PEM certificate", nil},
		{"bad protocol", func(c *config.TLS) { c.Protocols = "TLSv1.2 SSLv3" }, "invalid tls-protocols", nil},
		{"bad cipher", func(c *config.TLS) { c.Ciphers = "HIGH:!aNULL" }, "not a cipher suite", nil},
		{"narrow suites", func(c *config.TLS) { c.Ciphersuites = "TLS_AES_128_GCM_SHA256" }, "cannot be narrowed", nil},
		{"bad suite", func(c *config.TLS) { c.Ciphersuites = "TLS_FOO" }, "not a TLS 1.3 suite", nil},
		{"key mismatch", func(c *config.TLS) { c.KeyFile = f.ClientKey }, "private key does not match", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := base
			tc.mod(&cfg)
			got, err := Build(cfg)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("Build err = %v, want it to contain %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tc.check != nil && !tc.check(got) {
				t.Fatalf("unexpected config %+v", got)
			}
		})
	}
}

func TestEncryptedKey(t *testing.T) {
	f, cfg := certs(t)
	der, err := x509.MarshalECPrivateKey(f.ServerKeyValue)
	if err != nil {
		t.Fatal(err)
	}
	//nolint:staticcheck // making the legacy format tls-key-file-pass reads
	block, err := x509.EncryptPEMBlock(rand.Reader, "EC PRIVATE KEY", der, []byte("s3cret"), x509.PEMCipherAES256)
	if err != nil {
		t.Fatal(err)
	}
	enc := filepath.Join(t.TempDir(), "enc.key")
	if err := os.WriteFile(enc, pem.EncodeToMemory(block), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg.KeyFile = enc
	if _, err := Build(cfg); err == nil || !strings.Contains(err.Error(), "set tls-key-file-pass") {
		t.Fatalf("no pass: %v", err)
	}
	cfg.KeyFilePass = "wrong"
	if _, err := Build(cfg); err == nil || !strings.Contains(err.Error(), "decrypt") {
		t.Fatalf("wrong pass: %v", err)
	}
	cfg.KeyFilePass = "s3cret"
	if _, err := Build(cfg); err != nil {
		t.Fatalf("right pass: %v", err)
	}
	pk8 := filepath.Join(t.TempDir(), "pk8.key")
	if err := os.WriteFile(pk8, pem.EncodeToMemory(&pem.Block{Type: "ENCRYPTED PRIVATE KEY", Bytes: []byte{1, 2, 3}}), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg.KeyFile = pk8
	if _, err := Build(cfg); err == nil || !strings.Contains(err.Error(), "PKCS#8 key is not supported") {
		t.Fatalf("PKCS#8: %v", err)
	}
}

// TestListenerSlowHandshake checks that a client that never finishes its
// handshake neither blocks Accept nor other clients, and is closed after
// the timeout.
func TestListenerSlowHandshake(t *testing.T) {
	f, cfgIn := certs(t)
	cfgIn.AuthClients = config.TLSAuthNo
	cfg, err := Build(cfgIn)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var logged lockedBuf
	ln := NewListener(raw, NewLive(cfg), 300*time.Millisecond, slog.New(slog.NewTextHandler(&logged, nil)))
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { // echo
				defer c.Close()
				_, _ = io.Copy(c, c)
			}()
		}
	}()
	slow, err := net.Dial("tcp", raw.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer slow.Close()
	_, _ = slow.Write([]byte{0x16, 0x03, 0x01}) // the start of a record, then nothing
	pool := x509.NewCertPool()
	pool.AddCert(f.CA)
	start := time.Now()
	good, err := tls.Dial("tcp", raw.Addr().String(), &tls.Config{RootCAs: pool, ServerName: "127.0.0.1"})
	if err != nil {
		t.Fatal(err)
	}
	defer good.Close()
	if _, err := good.Write([]byte("ping")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 4)
	if _, err := io.ReadFull(good, buf); err != nil || string(buf) != "ping" {
		t.Fatalf("echo = %q, %v", buf, err)
	}
	if d := time.Since(start); d > 250*time.Millisecond {
		t.Errorf("a good client took %v behind a slow one", d)
	}
	_ = slow.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.ReadAll(slow); err != nil {
		t.Fatalf("the slow client was not closed by the server: %v", err)
	}
	// A plain-text client is refused without an answer it could read as RESP.
	plain, err := net.Dial("tcp", raw.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	_, _ = plain.Write([]byte("PING\r\n"))
	_ = plain.SetReadDeadline(time.Now().Add(5 * time.Second))
	got, _ := io.ReadAll(plain)
	if strings.Contains(string(got), "PONG") {
		t.Fatalf("a plain client got %q", got)
	}
	// A handshake that times out closes the connection before its error
	// is returned and logged: the line may come a moment after the EOF.
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		n := strings.Count(logged.String(), "Error accepting a client connection")
		if n == 2 {
			break
		}
		if n > 2 || time.Now().After(deadline) {
			t.Fatalf("%d failed handshakes logged, want 2:\n%s", n, logged.String())
		}
	}
}

type lockedBuf struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuf) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuf) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestExpiredClientCert checks that a client certificate past its date is
// refused when tls-auth-clients asks for one, while a valid one is taken.
func TestExpiredClientCert(t *testing.T) {
	f, cfgIn := certs(t)
	cfg, err := Build(cfgIn)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	expCert, expKey := filepath.Join(dir, "exp.crt"), filepath.Join(dir, "exp.key")
	if err := f.Issue(9, "expired", x509.ExtKeyUsageClientAuth, time.Now().Add(-time.Hour), expCert, expKey); err != nil {
		t.Fatal(err)
	}
	raw, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln := NewListener(raw, NewLive(cfg), 2*time.Second, nil)
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				_, _ = io.Copy(c, c)
			}()
		}
	}()
	pool := x509.NewCertPool()
	pool.AddCert(f.CA)
	try := func(certFile, keyFile string) error {
		cert, err := tls.LoadX509KeyPair(certFile, keyFile)
		if err != nil {
			t.Fatal(err)
		}
		c, err := tls.Dial("tcp", raw.Addr().String(), &tls.Config{RootCAs: pool, ServerName: "127.0.0.1", Certificates: []tls.Certificate{cert}})
		if err != nil {
			return err
		}
		defer c.Close()
		_ = c.SetDeadline(time.Now().Add(5 * time.Second))
		if _, err := c.Write([]byte("x")); err != nil {
			return err
		}
		_, err = io.ReadFull(c, make([]byte, 1))
		return err
	}
	if err := try(expCert, expKey); err == nil {
		t.Fatal("an expired client certificate was accepted")
	}
	if err := try(f.ClientCert, f.ClientKey); err != nil {
		t.Fatalf("a valid client certificate: %v", err)
	}
}
