package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
)

// TestPprofHidesCommandLine: the profiling endpoint must not hand out the
// process's command line, which may carry --requirepass; the profiles
// themselves are still served.
func TestPprofHidesCommandLine(t *testing.T) {
	srv := httptest.NewServer(pprofMux())
	defer srv.Close()
	get := func(path string) (int, string) {
		t.Helper()
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode, string(body)
	}
	arg0 := os.Args[0]
	for _, path := range []string{"/debug/pprof/cmdline", "/debug/pprof/cmdline?debug=1", "/debug/pprof/cmdline/"} {
		code, body := get(path)
		if code == http.StatusOK || strings.Contains(body, arg0) {
			t.Errorf("GET %s = %d %q: the command line is served", path, code, body)
		}
	}
	if code, body := get("/debug/pprof/goroutine?debug=1"); code != http.StatusOK || !strings.Contains(body, "goroutine profile") {
		t.Errorf("GET goroutine profile = %d %.80q", code, body)
	}
}
