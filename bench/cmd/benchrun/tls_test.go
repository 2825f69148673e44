package main

import (
	"strings"
	"testing"

	"github.com/cairndb/cairn/bench/internal/procs"
)

func TestTLSEndpoint(t *testing.T) {
	ok := append([]string{"--port", "6379"}, tlsArgs(7001, "/c/s.crt", "/c/s.key", "/c/ca.crt")...)
	tests := []struct {
		name     string
		args     []string
		port     int
		ca       string
		errsWith string
	}{
		{"both servers' arguments", ok, 7001, "/c/ca.crt", ""},
		{"last value wins", append(ok, "--tls-port", "7002"), 7002, "/c/ca.crt", ""},
		{"no TLS port", []string{"--port", "6379", "--tls-ca-cert-file", "x"}, 0, "", "without --tls-port"},
		{"no CA", []string{"--tls-port", "7001"}, 0, "", "without --tls-ca-cert-file"},
		{"bad port", []string{"--tls-port", "x", "--tls-ca-cert-file", "ca"}, 0, "", "bad --tls-port"},
		{"zero port", []string{"--tls-port", "0", "--tls-ca-cert-file", "ca"}, 0, "", "bad --tls-port"},
		{"name without value", []string{"--tls-ca-cert-file", "ca", "--tls-port"}, 0, "", "without --tls-port"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			port, ca, err := tlsEndpoint(tc.args)
			if tc.errsWith != "" {
				if err == nil || !strings.Contains(err.Error(), tc.errsWith) {
					t.Fatalf("err = %v, want one with %q", err, tc.errsWith)
				}
				return
			}
			if err != nil || port != tc.port || ca != tc.ca {
				t.Fatalf("tlsEndpoint = %d, %q, %v; want %d, %q", port, ca, err, tc.port, tc.ca)
			}
		})
	}
}

func TestCommandLineHidesTLSFiles(t *testing.T) {
	p := &procs.Process{Spec: procs.Spec{Bin: "/x/cairn", Args: append([]string{"--port", "1234"}, tlsArgs(5678, "/tmp/t/server.crt", "/tmp/t/server.key", "/tmp/t/ca.crt")...)}}
	got := commandLine(p)
	want := "cairn --port <port> --tls-port <tls port> --tls-cert-file <cert-file> --tls-key-file <key-file> --tls-ca-cert-file <ca-cert-file> --tls-auth-clients no"
	if got != want {
		t.Errorf("commandLine = %q\nwant          %q", got, want)
	}
}

// TestTLSCost checks the cost table's ratios: each server's TLS over its
// TCP figure, and Cairn over Redis on each transport.
func TestTLSCost(t *testing.T) {
	row := func(name string, pl int, redis, cairn float64) *matrixRow {
		return &matrixRow{Workload: name, Pipeline: pl, Requests: 1000,
			Redis: []benchRun{res(redis, 1, 2), res(redis, 1, 2)}, Cairn: []benchRun{res(cairn, 1, 2), res(cairn, 1, 2)}}
	}
	mr := &matrixResult{Scenario: tlsScenario, Rows: []*matrixRow{
		row("SET_TCP", 1, 100000, 80000), row("SET_TLS", 1, 50000, 30000),
		row("GET_TCP", 1, 100000, 100000), row("GET_TLS", 1, 40000, 36000),
		// -P 16 ran over TLS only: the TCP columns stay empty.
		row("SET_TLS", 16, 200000, 100000),
	}}
	var b strings.Builder
	writeTLSCost(&b, mr, []int{1, 16})
	for _, want := range []string{
		"| SET | 1 | 0.38× | 0.50× | 0.80× | 0.60× |",
		"| GET | 1 | 0.36× | 0.40× | 1.00× | 0.90× |",
		"| SET | 16 | – | – | – | 0.50× |",
		"| GET | 16 | – | – | – | – |",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("no %q in\n%s", want, b.String())
		}
	}
	mr.Note = "negotiated TLS 1.3"
	b.Reset()
	writeTLSIntro(&b, mr)
	for _, w := range tlsWorkloads {
		if !strings.Contains(b.String(), "- "+w.Name+": ") {
			t.Errorf("intro does not describe %s:\n%s", w.Name, b.String())
		}
	}
	if !strings.Contains(b.String(), mr.Note) {
		t.Errorf("intro lacks the note:\n%s", b.String())
	}
}

// TestTLSSmokeRunsTLS: the smoke run samples the TLS rows, which are
// redis-benchmark runs and so chosen by Only.
func TestTLSSmokeRunsTLS(t *testing.T) {
	s, err := settingsFor(options{mode: "smoke"})
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range tlsWorkloads {
		if got, want := s.Only[w.Name], strings.HasSuffix(w.Name, "_TLS"); got != want {
			t.Errorf("smoke Only[%s] = %v, want %v", w.Name, got, want)
		}
	}
}

func TestParseSClient(t *testing.T) {
	out := "Can't use SSL_get_servername\nCONNECTION ESTABLISHED\nProtocol version: TLSv1.3\nCiphersuite: TLS_AES_256_GCM_SHA384\nPeer certificate: CN = 127.0.0.1\n"
	if got, err := parseSClient([]byte(out)); err != nil || got != "TLSv1.3 TLS_AES_256_GCM_SHA384" {
		t.Errorf("parseSClient = %q, %v", got, err)
	}
	if _, err := parseSClient([]byte("connect: Connection refused\nconnect:errno=111\n")); err == nil {
		t.Error("parseSClient accepted output without a suite")
	}
}
