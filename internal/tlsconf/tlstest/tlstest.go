// Package tlstest makes certificates for tests: a CA, a server certificate
// for 127.0.0.1 and localhost, and a client certificate, written as PEM
// files.
package tlstest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// Files are the paths of the PEM files Generate wrote, and the parsed
// certificates and keys.
type Files struct {
	CACert, ServerCert, ServerKey, ClientCert, ClientKey string
	CA                                                   *x509.Certificate
	CAKey                                                *ecdsa.PrivateKey
	ServerKeyValue                                       *ecdsa.PrivateKey
}

// Generate writes a fresh CA, server and client certificate into dir.
func Generate(dir string) (*Files, error) {
	f := &Files{
		CACert: filepath.Join(dir, "ca.crt"), ServerCert: filepath.Join(dir, "server.crt"), ServerKey: filepath.Join(dir, "server.key"),
		ClientCert: filepath.Join(dir, "client.crt"), ClientKey: filepath.Join(dir, "client.key"),
	}
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	now := time.Now()
	caTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "Cairn test CA"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return nil, fmt.Errorf("CA certificate: %w", err)
	}
	if f.CA, err = x509.ParseCertificate(caDER); err != nil {
		return nil, err
	}
	f.CAKey = caKey
	if err := writePEM(f.CACert, "CERTIFICATE", caDER); err != nil {
		return nil, err
	}
	srvKey, err := f.issue(2, "server", x509.ExtKeyUsageServerAuth, now.Add(24*time.Hour), f.ServerCert, f.ServerKey)
	if err != nil {
		return nil, err
	}
	f.ServerKeyValue = srvKey
	if _, err := f.issue(3, "client", x509.ExtKeyUsageClientAuth, now.Add(24*time.Hour), f.ClientCert, f.ClientKey); err != nil {
		return nil, err
	}
	return f, nil
}

// Issue signs a new certificate with the CA, valid until notAfter (a past
// time makes an expired one), writing it and its key to certPath and
// keyPath.
func (f *Files) Issue(serial int64, name string, usage x509.ExtKeyUsage, notAfter time.Time, certPath, keyPath string) error {
	_, err := f.issue(serial, name, usage, notAfter, certPath, keyPath)
	return err
}

func (f *Files) issue(serial int64, name string, usage x509.ExtKeyUsage, notAfter time.Time, certPath, keyPath string) (*ecdsa.PrivateKey, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: name},
		NotBefore: notAfter.Add(-48 * time.Hour), NotAfter: notAfter,
		KeyUsage:    x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{usage},
		DNSNames:    []string{"localhost"},
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, f.CA, &key.PublicKey, f.CAKey)
	if err != nil {
		return nil, fmt.Errorf("%s certificate: %w", name, err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, err
	}
	if err := writePEM(certPath, "CERTIFICATE", der); err != nil {
		return nil, err
	}
	return key, writePEM(keyPath, "EC PRIVATE KEY", keyDER)
}

func writePEM(path, typ string, der []byte) error {
	return os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600)
}
