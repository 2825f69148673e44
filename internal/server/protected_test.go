package server

import (
	"net"
	"strings"
	"testing"
)

func TestProtectedDenied(t *testing.T) {
	tcp := func(ip string) net.Addr { return &net.TCPAddr{IP: net.ParseIP(ip), Port: 40000} }
	tests := []struct {
		name      string
		protected bool
		pass      string
		remote    net.Addr
		want      bool
	}{
		{"loopback v4", true, "", tcp("127.0.0.1"), false},
		{"loopback 127/8", true, "", tcp("127.3.4.5"), false},
		{"loopback v6", true, "", tcp("::1"), false},
		{"mapped loopback", true, "", tcp("::ffff:127.0.0.1"), false},
		{"remote v4", true, "", tcp("192.0.2.7"), true},
		{"remote v6", true, "", tcp("2001:db8::1"), true},
		{"remote with password", true, "secret", tcp("192.0.2.7"), false},
		{"remote, protected-mode off", false, "", tcp("192.0.2.7"), false},
		{"unix socket", true, "", &net.UnixAddr{Name: "/tmp/s", Net: "unix"}, false},
	}
	for _, tc := range tests {
		if got := protectedDenied(tc.protected, tc.pass, tc.remote); got != tc.want {
			t.Errorf("%s: protectedDenied = %v, want %v", tc.name, got, tc.want)
		}
	}
	if !strings.HasPrefix(deniedProtected, "-DENIED Redis is running in protected mode") || !strings.HasSuffix(deniedProtected, "from the outside.\r\n") ||
		strings.Count(deniedProtected, "\r\n") != 1 {
		t.Errorf("deniedProtected is not one RESP error line: %q", deniedProtected)
	}
}
