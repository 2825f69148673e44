package rdbimport

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/cairndb/cairn/internal/encoding"
	"github.com/cairndb/cairn/internal/engine"
	"github.com/cairndb/cairn/internal/store"
	"github.com/cockroachdb/pebble/v2/vfs"
)

func openStore(t *testing.T, databases int) *store.Store {
	t.Helper()
	eng, err := engine.OpenPebble("", engine.PebbleOptions{FS: vfs.NewMem(), CacheSize: 8 << 20})
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(eng, store.Options{Databases: databases})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := store.Check(st); err != nil {
			t.Errorf("store invariants: %v", err)
		}
		st.Close()
		eng.Close()
	})
	return st
}

// The file Redis 7.0 wrote (see internal/rdb's tests) imports whole, in
// small batches.
func TestImportRedis70File(t *testing.T) {
	data, err := os.ReadFile("../rdb/testdata/redis70-all.rdb")
	if err != nil {
		t.Fatal(err)
	}
	st := openStore(t, 16)
	var progress bytes.Buffer
	stats, err := Import(bytes.NewReader(data), st, Options{Size: int64(len(data)), Progress: &progress, BatchKeys: 3})
	if err != nil {
		t.Fatal(err)
	}
	// Three keys have deadlines fixed when the file was written: later
	// runs find them expired.
	if stats.Keys+stats.Expired != 19 || stats.Keys < 16 || len(stats.Skipped) != 0 || stats.Functions != 1 || stats.Bytes != int64(len(data)) {
		t.Fatalf("stats %+v", stats)
	}
	if !strings.Contains(progress.String(), "100%") || strings.Contains(stats.Summary(), "skipped") && !strings.Contains(stats.Summary(), "expired") {
		t.Fatalf("progress %q, summary %q", progress.String(), stats.Summary())
	}
	tx := st.Read(true)
	defer tx.Close()
	v, deadline, ok, err := tx.ReadValue(0, []byte("lbig"))
	if err != nil || !ok || v.Type != encoding.TypeList || len(v.Items) != 200 || deadline != 0 || string(v.Items[199]) != "item-200-xxxx" {
		t.Fatalf("lbig: %v %v %d items, deadline %d", err, ok, len(v.Items), deadline)
	}
	// The stream, with its group and the pending entry of consumer c1.
	v, _, ok, err = tx.ReadValue(0, []byte("st"))
	if err != nil || !ok || v.Type != encoding.TypeStream || len(v.Stream.Entries) != 2 || len(v.Stream.Groups) != 1 ||
		len(v.Stream.Groups[0].Pending) != 1 || string(v.Stream.Groups[0].Pending[0].Consumer) != "c1" {
		t.Fatalf("st: %v %v %+v", err, ok, v.Stream)
	}
	v, _, ok, err = tx.ReadValue(3, []byte("db3key"))
	if err != nil || !ok || string(v.String) != "x" {
		t.Fatalf("db3key: %v %v %q", err, ok, v.String)
	}
	libs, err := st.FunctionLibraries()
	if err != nil || len(libs) != 1 {
		t.Fatalf("libraries %q, %v", libs, err)
	}
}

// A database the server does not have stops the import with a clear error.
func TestImportDatabaseOutOfRange(t *testing.T) {
	data, err := os.ReadFile("../rdb/testdata/redis70-all.rdb")
	if err != nil {
		t.Fatal(err)
	}
	st := openStore(t, 2)
	_, err = Import(bytes.NewReader(data), st, Options{})
	if err == nil || !strings.Contains(err.Error(), "database 3 out of range") {
		t.Fatalf("import into 2 databases: %v", err)
	}
}
