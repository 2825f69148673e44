package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

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

// A corrupt file is refused with the place it went wrong.
func TestImportCorruptFile(t *testing.T) {
	data, err := os.ReadFile("../../internal/rdb/testdata/redis70-all.rdb")
	if err != nil {
		t.Fatal(err)
	}
	bad := bytes.Clone(data)
	bad[len(bad)-3] ^= 1 // the checksum
	file := filepath.Join(t.TempDir(), "bad.rdb")
	if err := os.WriteFile(file, bad, 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	err = runImport([]string{file, "--dir", t.TempDir()}, &out)
	if err == nil || !strings.Contains(err.Error(), "checksum") {
		t.Fatalf("import of a corrupt file: %v\n%s", err, out.String())
	}
}
