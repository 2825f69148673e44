package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/pprof"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestProfilerMergesWindows profiles this test process through the same
// net/http/pprof handlers Cairn would serve, over more than one window.
func TestProfilerMergesWindows(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go tool pprof is needed to merge profiles")
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.Handle("/debug/pprof/allocs", pprof.Handler("allocs"))
	srv := httptest.NewServer(mux)
	defer srv.Close()

	dir := t.TempDir()
	pr := newProfiler(context.Background(), strings.TrimPrefix(srv.URL, "http://"), dir, "test", time.Second)
	var sink [][]byte
	for end := time.Now().Add(1500 * time.Millisecond); time.Now().Before(end); {
		sink = append(sink, make([]byte, 1024))
		if len(sink) > 1000 {
			sink = sink[:0]
		}
	}
	files, errs := pr.stop()
	if len(errs) > 0 {
		t.Fatalf("profiler errors: %v", errs)
	}
	if len(pr.files["cpu"]) < 2 {
		t.Errorf("got %d CPU windows, want ≥ 2 over 1.5 s of 1 s windows", len(pr.files["cpu"]))
	}
	if len(files) != 2 {
		t.Fatalf("merged files = %v, want cpu and allocs", files)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("%s is not a gzipped profile: %v", f, err)
		}
		raw, err := io.ReadAll(zr)
		if err != nil || len(raw) == 0 {
			t.Fatalf("%s: empty or corrupt profile (%v)", f, err)
		}
	}
}

func TestProfilerReportsMissingEndpoint(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()
	pr := newProfiler(context.Background(), strings.TrimPrefix(srv.URL, "http://"), t.TempDir(), "none", time.Second)
	time.Sleep(300 * time.Millisecond) // let both loops make their first request
	files, errs := pr.stop()
	if len(files) != 0 || len(errs) != 2 || !strings.Contains(errs[0].Error(), "404") {
		t.Errorf("files %v errs %v; want no files and a 404 error per kind", files, errs)
	}
}
