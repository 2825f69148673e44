package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestMetricsAddr runs the binary with metrics-addr and scrapes it: the
// endpoint serves the server's figures on /metrics and nothing else.
func TestMetricsAddr(t *testing.T) {
	bin := buildCairn(t)
	maddr := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	p := startCairn(t, bin, true, 0, "--dir", t.TempDir(), "--metrics-addr", maddr)
	if !strings.Contains(p.out.String(), "serving metrics") {
		t.Fatalf("no log of the metrics endpoint:\n%s", p.out)
	}
	c := p.client(t)
	if err := c.Set(context.Background(), "k", "v", 0).Err(); err != nil {
		t.Fatal(err)
	}
	get := func(path string) (int, string) {
		resp, err := http.Get("http://" + maddr + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	code, body := get("/metrics")
	if code != http.StatusOK {
		t.Fatalf("GET /metrics: %d", code)
	}
	for _, want := range []string{"\nredis_up 1\n", "\nredis_commands_total{cmd=\"set\"} 1\n", "\nredis_db_keys{db=\"db0\"} 1\n", "\ncairn_engine_failed 0\n"} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %q", strings.TrimSpace(want))
		}
	}
	if code, _ := get("/debug/pprof/"); code != http.StatusNotFound {
		t.Errorf("GET /debug/pprof/ on the metrics address: %d, want 404", code)
	}
}
