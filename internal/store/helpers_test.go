package store

import (
	"testing"
	"time"

	"github.com/cairndb/cairn/internal/engine"
)

// Helpers shared by the tests of every data type.

func byteSlices(ss ...string) [][]byte {
	out := make([][]byte, len(ss))
	for i, s := range ss {
		out[i] = []byte(s)
	}
	return out
}

func stringsOf(bs [][]byte) []string {
	out := make([]string, len(bs))
	for i, b := range bs {
		out[i] = string(b)
	}
	return out
}

// writeTx runs fn in a writing Tx over keys, commits, and returns fn's
// result.
func writeTx[T any](t testing.TB, s *Store, keys []string, fn func(tx *Tx) (T, error)) T {
	t.Helper()
	tx := s.Begin(byteSlices(keys...))
	defer tx.Close()
	v, err := fn(tx)
	if err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	return v
}

// commit runs fn in a writing Tx over keys and commits it, returning the
// first error: for goroutines, which must not call t.Fatal.
func commit(s *Store, keys [][]byte, fn func(tx *Tx) error) error {
	tx := s.Begin(keys)
	defer tx.Close()
	if err := fn(tx); err != nil {
		return err
	}
	return tx.Commit()
}

// readTx runs fn in a reading Tx and returns its result.
func readTx[T any](t testing.TB, s *Store, fn func(tx *Tx) (T, error)) T {
	t.Helper()
	tx := s.Read(false)
	defer tx.Close()
	v, err := fn(tx)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// openBenchStore opens a store on an on-disk Pebble in a temporary
// directory, as a server would run, with a block cache of cacheSize bytes
// (0: the engine's default) and the clock now (nil: the real one).
func openBenchStore(b *testing.B, cacheSize int64, now func() time.Time) *Store {
	b.Helper()
	eng, err := engine.OpenPebble(b.TempDir(), engine.PebbleOptions{CacheSize: cacheSize})
	if err != nil {
		b.Fatal(err)
	}
	s, err := Open(eng, Options{Databases: 1, Sync: SyncNo, Now: now, ReapInterval: time.Hour, KeyCacheSize: testKeyCache, MemberFilterSize: testMemberFilters})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		_ = s.Close()
		_ = eng.Close()
	})
	return s
}

// benchWrite runs fn in a writing Tx on key and commits it.
func benchWrite(b *testing.B, s *Store, key []byte, fn func(tx *Tx) error) {
	tx := s.Begin([][]byte{key})
	defer tx.Close()
	if err := fn(tx); err != nil {
		b.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
}
