package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairndb/cairn/internal/config"
)

// TestPackagingCommandLines: the command lines the Dockerfile and the
// systemd unit start Cairn with name the config file first and then only
// settings Cairn accepts, so that a renamed or removed setting cannot
// leave the image or the unit unable to start.
func TestPackagingCommandLines(t *testing.T) {
	root := filepath.Join("..", "..")
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(root, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	lineOf := func(text, prefix string) string {
		for _, l := range strings.Split(text, "\n") {
			if strings.HasPrefix(l, prefix) {
				return strings.TrimPrefix(l, prefix)
			}
		}
		t.Fatalf("no line starting with %q", prefix)
		return ""
	}
	var entry []string
	if err := json.Unmarshal([]byte(lineOf(read("Dockerfile"), "ENTRYPOINT ")), &entry); err != nil {
		t.Fatalf("Dockerfile ENTRYPOINT: %v", err)
	}
	unit := read("contrib/cairn.service")
	tests := []struct {
		name string
		argv []string
	}{
		{"Dockerfile ENTRYPOINT", entry},
		{"cairn.service ExecStart", strings.Fields(lineOf(unit, "ExecStart="))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if len(tt.argv) < 2 || filepath.Base(tt.argv[0]) != "cairn" || !strings.HasSuffix(tt.argv[1], ".conf") {
				t.Fatalf("command line %q: want cairn, a config file, then settings", tt.argv)
			}
			if err := config.Default().ApplyArgs(tt.argv[2:]); err != nil {
				t.Errorf("settings %q refused: %v", tt.argv[2:], err)
			}
		})
	}
	for _, want := range []string{"KillSignal=SIGTERM", "StateDirectory=cairn", "User=cairn"} {
		if !strings.Contains(unit, "\n"+want+"\n") {
			t.Errorf("cairn.service lacks %q", want)
		}
	}
}
