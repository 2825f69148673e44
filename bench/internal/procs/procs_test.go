package procs

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestStatusBytes(t *testing.T) {
	status := []byte("Name:\tcairn\nVmPeak:\t  900 kB\nVmHWM:\t   12345 kB\nVmRSS:\t 100 kB\nBad:\t12 MB\n")
	tests := []struct {
		field   string
		want    int64
		wantErr string
	}{
		{"VmHWM", 12345 * 1024, ""},
		{"VmRSS", 100 * 1024, ""},
		{"VmSwap", 0, "not found"},
		{"Bad", 0, "unexpected value"},
		{"Name", 0, "unexpected value"},
	}
	for _, tc := range tests {
		got, err := StatusBytes(status, tc.field)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("StatusBytes(%s) err = %v, want %q", tc.field, err, tc.wantErr)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("StatusBytes(%s) = %d, %v; want %d", tc.field, got, err, tc.want)
		}
	}
}

func TestDirSizeCountsNestedFiles(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "a", "b"), 0o755); err != nil {
		t.Fatal(err)
	}
	data := make([]byte, 64<<10)
	for i := range data {
		data[i] = byte(i * 7)
	}
	if err := os.WriteFile(filepath.Join(dir, "a", "b", "f"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	before, err := DirSize(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "g.sst"), data[:1000], 0o644); err != nil {
		t.Fatal(err)
	}
	after, err := DirSize(dir)
	if err != nil {
		t.Fatal(err)
	}
	if before.Apparent != int64(len(data)) || after.Apparent != int64(len(data))+1000 {
		t.Errorf("Apparent before=%d after=%d; want %d and %d", before.Apparent, after.Apparent, len(data), len(data)+1000)
	}
	if after.ByExt[".sst"] != 1000 || after.ByExt[""] != int64(len(data)) {
		t.Errorf("ByExt = %v; want .sst 1000 and \"\" %d", after.ByExt, len(data))
	}
	if before.Allocated <= 0 || after.Allocated <= before.Allocated {
		t.Errorf("Allocated before=%d after=%d; want a positive size that grows with a new file", before.Allocated, after.Allocated)
	}
	if _, err := DirSize(filepath.Join(dir, "missing")); err == nil {
		t.Error("DirSize of a missing directory did not fail")
	}
}

func TestStartReportsEarlyExit(t *testing.T) {
	var g Group
	defer g.Close()
	dir, err := g.TempDir(t.TempDir(), "procs-")
	if err != nil {
		t.Fatal(err)
	}
	port, err := FreePort()
	if err != nil {
		t.Fatal(err)
	}
	_, err = g.Start(context.Background(), Spec{
		Name: "sh", Bin: "/bin/sh", Args: []string{"-c", "echo unknown setting pprof-addr >&2; exit 3"},
		Port: port, LogPath: filepath.Join(dir, "log"), ReadyTimeout: 5 * time.Second,
	})
	if err == nil || !strings.Contains(err.Error(), "exited before serving") || !strings.Contains(err.Error(), "pprof-addr") {
		t.Fatalf("Start err = %v, want early exit with the log tail", err)
	}
}

func TestCloseRemovesDirs(t *testing.T) {
	var g Group
	dir, err := g.TempDir(t.TempDir(), "procs-")
	if err != nil {
		t.Fatal(err)
	}
	if err := g.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("Close left %s behind (stat err %v)", dir, err)
	}
}
