package config

import (
	"os"
	"path/filepath"
	"testing"
)

func TestOutputBufferLimitSet(t *testing.T) {
	for _, tc := range []struct {
		name, value, want, err string
	}{
		{"default", "", defaultOutputBufferLimits, ""},
		{"one class", "pubsub 1mb 512kb 10", "normal 0 0 0 slave 268435456 67108864 60 pubsub 1048576 524288 10", ""},
		{"replica alias, case", "REPLICA 1k 2k 3", "normal 0 0 0 slave 1000 2000 3 pubsub 33554432 8388608 60", ""},
		{"two classes", "normal 1 2 3 pubsub 4 5 6", "normal 1 2 3 slave 268435456 67108864 60 pubsub 4 5 6", ""},
		{"wrong count", "pubsub 1 2", "", "Wrong number of arguments in buffer limit configuration."},
		{"master", "master 1 2 3", "", "Invalid client class specified in buffer limit configuration."},
		{"bad memory", "pubsub 1x 2 3", "", "Error in hard, soft or soft_seconds setting in buffer limit configuration."},
		{"negative seconds", "pubsub 1 2 -1", "", "Error in hard, soft or soft_seconds setting in buffer limit configuration."},
		{"bad seconds", "pubsub 1 2 3s", "", "Error in hard, soft or soft_seconds setting in buffer limit configuration."},
		{"all or nothing", "normal 1 2 3 pubsub 1 2 x", "", "Error in hard, soft or soft_seconds setting in buffer limit configuration."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := Default()
			err := c.Set([][2]string{{"client-output-buffer-limit", tc.value}})
			if tc.err != "" {
				want := "ERR CONFIG SET failed (possibly related to argument 'client-output-buffer-limit') - " + tc.err
				if err == nil || err.Error() != want {
					t.Fatalf("err = %v, want %q", err, want)
				}
				tc.want = defaultOutputBufferLimits
			} else if err != nil {
				t.Fatal(err)
			}
			got := c.Get("client-output-buffer-limit")
			if len(got) != 1 || got[0][1] != tc.want {
				t.Fatalf("CONFIG GET = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestOutputBufferLimitFileAndGetter(t *testing.T) {
	c := Default()
	if l := c.OutputBufferLimit("pubsub"); l != (OutputBufferLimit{33554432, 8388608, 60}) {
		t.Fatalf("default pubsub limit %+v", l)
	}
	path := filepath.Join(t.TempDir(), "cairn.conf")
	text := "client-output-buffer-limit pubsub 32mb 8mb 30\nclient-output-buffer-limit \"normal 1kb 0 0\"\n"
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := c.LoadFile(path); err != nil {
		t.Fatal(err)
	}
	if l := c.OutputBufferLimit("pubsub"); l != (OutputBufferLimit{32 << 20, 8 << 20, 30}) {
		t.Fatalf("pubsub limit %+v", l)
	}
	if l := c.OutputBufferLimit("normal"); l != (OutputBufferLimit{1024, 0, 0}) {
		t.Fatalf("normal limit %+v", l)
	}
	if l := c.OutputBufferLimit("replica"); l != (OutputBufferLimit{256 << 20, 64 << 20, 60}) {
		t.Fatalf("replica limit %+v", l)
	}
	if err := c.ApplyArgs([]string{"--client-output-buffer-limit", "pubsub", "1", "2"}); err == nil {
		t.Fatal("three words accepted")
	}
}
