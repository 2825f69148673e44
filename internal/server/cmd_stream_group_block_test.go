package server

import (
	"strings"
	"testing"
)

// TestXReadGroupBlockCreatesConsumer: a blocking XREADGROUP that times out
// with nothing read has still created its consumer, as Redis 7.2 creates
// it before blocking.
func TestXReadGroupBlockCreatesConsumer(t *testing.T) {
	ts := startServer(t)
	rc := ts.wire(t)
	rc.do("XGROUP", "CREATE", "s", "g", "$", "MKSTREAM")
	if got := rc.do("XREADGROUP", "GROUP", "g", "c1", "COUNT", "1", "BLOCK", "10", "STREAMS", "s", ">"); got != "*-1\r\n" {
		t.Fatalf("XREADGROUP BLOCK = %q", got)
	}
	if got := rc.do("XINFO", "CONSUMERS", "s", "g"); !strings.Contains(got, "c1") {
		t.Fatalf("XINFO CONSUMERS after a timed-out XREADGROUP = %q", got)
	}
}
