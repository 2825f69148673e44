package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cairndb/cairn/internal/engine"
	"github.com/cairndb/cairn/internal/rdb"
	"github.com/cairndb/cairn/internal/redistest"
)

// An RDB file written by a real Redis, imported with `cairn import`, gives
// a Cairn whose every key has Redis's type, value and deadline.
func TestImportRedisFile(t *testing.T) {
	r := redistest.Start(t)
	do := func(c *redistest.Conn, args ...any) any { return mustDo(t, c, args...) }
	do(r, "SET", "str", "hello")
	do(r, "SET", "int", 42)
	do(r, "SET", "long", strings.Repeat("compress me ", 200), "PX", 800000)
	do(r, "RPUSH", "list", "a", "b", "c")
	do(r, "SADD", "intset", 3, 1, 2)
	do(r, "ZADD", "zset", 1, "one", 2.5, "two", "-inf", "low")
	do(r, "HSET", "hash", "f", "v", "g", "w")
	for i := range 300 {
		do(r, "RPUSH", "biglist", fmt.Sprintf("e%d", i))
		do(r, "SADD", "bigset", fmt.Sprintf("m%d", i))
		do(r, "ZADD", "bigzset", i, fmt.Sprintf("m%d", i))
		do(r, "HSET", "bighash", fmt.Sprintf("f%d", i), strings.Repeat("x", i))
	}
	do(r, "EXPIRE", "bighash", 5000)
	do(r, "XADD", "stream", "1-1", "a", "1")
	do(r, "XADD", "stream", "1-2", "a", "2", "b", "3")
	do(r, "XGROUP", "CREATE", "stream", "g", "0")
	do(r, "XREADGROUP", "GROUP", "g", "alice", "COUNT", "1", "STREAMS", "stream", ">")
	do(r, "FUNCTION", "LOAD", "#!lua name=importlib\nredis.register_function('imported', function() return 7 end)")
	do(r, "SELECT", 5)
	do(r, "SET", "in5", "five", "EX", 3000)
	do(r, "SADD", "set5", "x", "y")
	// In the file (Redis's expiry cycle has no time to reclaim it before
	// the SAVE), expired by the time of the import.
	do(r, "SELECT", 0)
	do(r, "SET", "gone", "x", "PX", 300)
	do(r, "SAVE")
	time.Sleep(400 * time.Millisecond)
	redisDir := do(r, "CONFIG", "GET", "dir").([]any)[1].([]byte)
	file := filepath.Join(string(redisDir), "dump.rdb")

	bin := buildCairn(t)
	dir := t.TempDir()
	out, err := exec.Command(bin, "import", file, "--dir", dir).CombinedOutput()
	if err != nil {
		t.Fatalf("cairn import: %v\n%s", err, out)
	}
	for _, want := range []string{"loaded 14 keys (db0: 12, db5: 2), 1 function libraries", "skipped 1 keys already expired", "keys/s"} {
		if !bytes.Contains(out, []byte(want)) {
			t.Errorf("import output lacks %q:\n%s", want, out)
		}
	}

	p := startCairn(t, bin, true, 0, "--dir", dir)
	c := redistest.Dial(t, fmt.Sprintf("127.0.0.1:%d", p.port))
	compared := 0
	for _, db := range []int{0, 5} {
		do(r, "SELECT", db)
		do(c, "SELECT", db)
		keys := do(r, "KEYS", "*").([]any)
		if n := do(c, "DBSIZE").(int64); int(n) != len(keys) {
			t.Errorf("db %d: Cairn has %d keys, Redis %d", db, n, len(keys))
		}
		for _, k := range keys {
			key := k.([]byte)
			typ := string(do(r, "TYPE", key).([]byte))
			if got := string(do(c, "TYPE", key).([]byte)); got != typ {
				t.Errorf("db %d key %s: type %s, Redis %s", db, key, got, typ)
				continue
			}
			if a, b := do(c, "PEXPIRETIME", key), do(r, "PEXPIRETIME", key); a != b {
				t.Errorf("db %d key %s: deadline %v, Redis %v", db, key, a, b)
			}
			want := normalized(t, do(r, "DUMP", key).([]byte))
			got := normalized(t, do(c, "DUMP", key).([]byte))
			if !reflect.DeepEqual(got, want) {
				t.Errorf("db %d key %s: value %+v, Redis %+v", db, key, got, want)
			}
			compared++
		}
	}
	if compared != 14 {
		t.Fatalf("compared %d keys", compared)
	}
	do(c, "SELECT", 0)
	if v := do(c, "FCALL", "imported", 0); v != int64(7) {
		t.Fatalf("FCALL of the imported library: %v", v)
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// normalized decodes a DUMP payload and sorts what has no order.
func normalized(t *testing.T, payload []byte) rdb.Object {
	t.Helper()
	o, err := rdb.DecodeValue(payload)
	if err != nil {
		t.Fatal(err)
	}
	o.Canonicalize()
	return o
}

// A corrupt file is refused with the place it went wrong, and leaves the
// directory as it was, whether it was empty or held data: an import loads
// the whole file or nothing.
func TestImportCorruptFile(t *testing.T) {
	// Many more keys than one commit of the import takes (512), so that
	// an import that loads as it reads would commit some before the error.
	file := func(value string) []byte {
		var buf bytes.Buffer
		fw := rdb.NewFileWriter(&buf, [][2]string{{"redis-ver", "7.0.15"}})
		const keys = 3000
		if err := fw.SelectDB(0, keys, 0); err != nil {
			t.Fatal(err)
		}
		for i := range keys {
			v := rdb.Object{Kind: rdb.KindString, String: []byte(fmt.Sprintf("%s-%d", value, i))}
			if err := fw.Key([]byte(fmt.Sprintf("key-%d", i)), v, -1); err != nil {
				t.Fatal(err)
			}
		}
		if err := fw.Close(); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	data, old := file("new"), file("old")
	flip := func(at int) []byte {
		b := bytes.Clone(data)
		b[at] ^= 1
		return b
	}
	for _, tc := range []struct {
		name string
		file []byte
		want string
	}{
		{"FlippedChecksumByte", flip(len(data) - 3), "checksum"},
		{"CorruptNearTheEnd", flip(len(data) - 40), "rdb"},
		{"TruncatedBeforeTheChecksum", data[:len(data)-9], "rdb"},
		{"TruncatedHalfway", data[:len(data)/2], "rdb"},
	} {
		for _, nonEmpty := range []bool{false, true} {
			name := tc.name + map[bool]string{false: "IntoAnEmptyDir", true: "IntoADirWithData"}[nonEmpty]
			t.Run(name, func(t *testing.T) {
				tmp := t.TempDir()
				dir := filepath.Join(tmp, "data")
				if nonEmpty {
					good := filepath.Join(tmp, "good.rdb")
					if err := os.WriteFile(good, old, 0o644); err != nil {
						t.Fatal(err)
					}
					var out bytes.Buffer
					if err := runImport([]string{good, "--dir", dir}, &out); err != nil {
						t.Fatalf("import of the good file: %v\n%s", err, out.String())
					}
				}
				before := engineRecords(t, dir)
				if nonEmpty && len(before) == 0 {
					t.Fatal("the good file's import left no records")
				}
				file := filepath.Join(tmp, "bad.rdb")
				if err := os.WriteFile(file, tc.file, 0o644); err != nil {
					t.Fatal(err)
				}
				var out bytes.Buffer
				err := runImport([]string{file, "--dir", dir}, &out)
				if err == nil || !strings.Contains(strings.ToLower(err.Error()), tc.want) {
					t.Fatalf("import of a corrupt file: %v, want an error about %q\n%s", err, tc.want, out.String())
				}
				if _, err := os.Stat(filepath.Join(dir, importMarker)); err == nil {
					t.Error("a refused file left the unfinished-import marker")
				}
				after := engineRecords(t, dir)
				if !reflect.DeepEqual(before, after) {
					t.Fatalf("the refused import changed the directory: %d records before, %d after", len(before), len(after))
				}
			})
		}
	}
}

// engineRecords returns every record of the store in dir (none if dir does
// not exist yet), by key.
func engineRecords(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	if _, err := os.Stat(dir); err != nil {
		return out
	}
	eng, err := engine.OpenPebble(dir, engine.PebbleOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	it, err := eng.NewIter(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	for ok := it.First(); ok; ok = it.Next() {
		out[string(it.Key())] = string(it.Value())
	}
	if err := errors.Join(it.Error(), it.Close()); err != nil {
		t.Fatal(err)
	}
	return out
}

// An import that did not finish (the process died, or the engine failed,
// halfway) leaves a marker: the server refuses the directory, and an
// import run to its end clears it.
func TestUnfinishedImportIsNotServed(t *testing.T) {
	bin := buildCairn(t)
	tmp := t.TempDir()
	dir := filepath.Join(tmp, "data")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	file := "../../internal/rdb/testdata/redis70-all.rdb"
	// As an import leaves it when it dies halfway.
	if err := markImport(dir, file); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, "--dir", dir, "--port", strconv.Itoa(freePort(t)), "--bind", "127.0.0.1").CombinedOutput()
	if err == nil || !strings.Contains(string(out), "did not finish") {
		t.Fatalf("server on a directory with an unfinished import: %v\n%s", err, out)
	}
	if out, err := exec.Command(bin, "import", file, "--dir", dir).CombinedOutput(); err != nil {
		t.Fatalf("cairn import: %v\n%s", err, out)
	}
	p := startCairn(t, bin, true, 0, "--dir", dir)
	if n, err := p.client(t).DBSize(context.Background()).Result(); err != nil || n == 0 {
		t.Fatalf("DBSIZE after the import finished = %d, %v", n, err)
	}
}
