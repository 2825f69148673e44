package lualib

import (
	"testing"

	"github.com/cairndb/cairn/internal/redistest"
)

// startRedis runs the snippets through EVAL in a real redis-server, or
// skips the test when none is installed.
func startRedis(t *testing.T) reference {
	c := redistest.Start(t)
	return func(code string) string {
		// A fresh Lua state for every case: cjson's settings last as
		// long as the state does.
		if _, err := c.Do("SCRIPT", "FLUSH"); err != nil {
			t.Fatalf("SCRIPT FLUSH: %v", err)
		}
		v, err := c.Do("EVAL", wrap(code), "0")
		if err != nil {
			t.Fatalf("EVAL of %q: %v", code, err)
		}
		b, ok := v.([]byte)
		if !ok {
			t.Fatalf("EVAL of %q: reply %T", code, v)
		}
		return string(b)
	}
}
