package tlsconf

import "testing"

// FuzzSettingParsers feeds arbitrary text to the parsers of tls-protocols,
// tls-ciphers and tls-ciphersuites: each must answer without panicking, and
// an accepted value must mean something.
func FuzzSettingParsers(f *testing.F) {
	for _, s := range []string{"", "TLSv1.2 TLSv1.3", "tlsv1", "SSLv3", "ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-CHACHA20-POLY1305",
		"TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256", "HIGH:!aNULL", ":::", "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if lo, hi, err := protocols(s); err == nil && (lo == 0 || hi < lo) {
			t.Fatalf("protocols(%q) = %x..%x", s, lo, hi)
		}
		if ids, err := ciphers(s); err == nil {
			for _, id := range ids {
				if id == 0 {
					t.Fatalf("ciphers(%q) gave suite 0", s)
				}
			}
		}
		_ = ciphersuites(s)
	})
}
