package server

import (
	"bytes"
	"fmt"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/cairndb/cairn/internal/rdb"
	"github.com/cairndb/cairn/internal/redistest"
)

// SAVE writes a file the real Redis loads with every key, value and
// deadline, in every database, and the function libraries.
func TestSaveLoadsInRedis(t *testing.T) {
	dir := t.TempDir()
	ts := startServer(t, "dir", dir)
	c := redistest.Dial(t, ts.addr)
	mustDo(t, c, "SET", "str", "hello")
	mustDo(t, c, "SET", "num", 12345)
	mustDo(t, c, "SET", "ttl", strings.Repeat("long ", 100), "PX", 900000)
	mustDo(t, c, "RPUSH", "list", "a", "b", "c")
	mustDo(t, c, "SADD", "set", 1, 2, "x")
	mustDo(t, c, "ZADD", "zset", 1, "one", "-inf", "low", 2.5, "two")
	mustDo(t, c, "HSET", "hash", "f", "v", "g", "w")
	for i := range 200 {
		mustDo(t, c, "RPUSH", "biglist", i)
		mustDo(t, c, "HSET", "bighash", fmt.Sprintf("f%d", i), i)
	}
	mustDo(t, c, "EXPIRE", "bighash", 3000)
	// A stream of several nodes, with a deleted entry and a group with
	// pending entries of two consumers.
	for i := 1; i <= 250; i++ {
		mustDo(t, c, "XADD", "stream", fmt.Sprintf("%d-1", i), "f", i)
	}
	mustDo(t, c, "XDEL", "stream", "7-1")
	mustDo(t, c, "XGROUP", "CREATE", "stream", "g", "0")
	mustDo(t, c, "XREADGROUP", "GROUP", "g", "a", "COUNT", "3", "STREAMS", "stream", ">")
	mustDo(t, c, "XREADGROUP", "GROUP", "g", "b", "COUNT", "150", "STREAMS", "stream", ">")
	mustDo(t, c, "XACK", "stream", "g", "2-1")
	mustDo(t, c, "PEXPIRE", "stream", 800000)
	mustDo(t, c, "FUNCTION", "LOAD", "#!lua name=savedlib\nredis.register_function('saved', function() return 5 end)")
	mustDo(t, c, "SELECT", 7)
	mustDo(t, c, "SET", "seven", "7", "EX", 700)
	mustDo(t, c, "SADD", "set7", "a")
	if v := mustDo(t, c, "SAVE"); string(v.([]byte)) != "OK" {
		t.Fatalf("SAVE = %q", v)
	}

	if check, err := exec.LookPath("redis-check-rdb"); err == nil {
		out, err := exec.Command(check, filepath.Join(dir, "dump.rdb")).CombinedOutput()
		if err != nil || !bytes.Contains(out, []byte("RDB looks OK")) {
			t.Fatalf("redis-check-rdb: %v\n%s", err, out)
		}
	}
	r := startRedisOn(t, dir)
	compared := 0
	for _, db := range []int{0, 7} {
		mustDo(t, c, "SELECT", db)
		mustDo(t, r, "SELECT", db)
		keys := mustDo(t, c, "KEYS", "*").([]any)
		if n := mustDo(t, r, "DBSIZE").(int64); int(n) != len(keys) {
			t.Errorf("db %d: Redis loaded %d keys, Cairn has %d", db, n, len(keys))
		}
		for _, k := range keys {
			key := k.([]byte)
			if a, b := mustDo(t, r, "TYPE", key), mustDo(t, c, "TYPE", key); !bytes.Equal(a.([]byte), b.([]byte)) {
				t.Errorf("db %d key %s: Redis type %s, Cairn %s", db, key, a, b)
				continue
			}
			if a, b := mustDo(t, r, "PEXPIRETIME", key), mustDo(t, c, "PEXPIRETIME", key); a != b {
				t.Errorf("db %d key %s: Redis deadline %v, Cairn %v", db, key, a, b)
			}
			want := normalizedDump(t, mustDo(t, c, "DUMP", key).([]byte))
			got := normalizedDump(t, mustDo(t, r, "DUMP", key).([]byte))
			if !reflect.DeepEqual(got, want) {
				t.Errorf("db %d key %s: Redis %+v, Cairn %+v", db, key, got, want)
			}
			compared++
		}
	}
	if compared != 12 {
		t.Fatalf("compared %d keys", compared)
	}
	if v := mustDo(t, r, "FCALL", "saved", 0); v != int64(5) {
		t.Fatalf("FCALL in Redis: %v", v)
	}
}

// normalizedDump decodes a DUMP payload and sorts what has no order.
func normalizedDump(t *testing.T, payload []byte) rdb.Object {
	t.Helper()
	o, err := rdb.DecodeValue(payload)
	if err != nil {
		t.Fatal(err)
	}
	o.Canonicalize()
	return o
}

// BGSAVE answers at once, saves in the background and reports in INFO.
func TestBgsave(t *testing.T) {
	dir := t.TempDir()
	ts := startServer(t, "dir", dir, "dbfilename", "snap.rdb")
	c := redistest.Dial(t, ts.addr)
	mustDo(t, c, "SET", "k", "v")
	if _, err := c.Do("BGSAVE", "NOW"); err == nil || !strings.Contains(err.Error(), "ERR syntax error") {
		t.Fatalf("BGSAVE NOW: %v", err)
	}
	if v := mustDo(t, c, "BGSAVE"); string(v.([]byte)) != "Background saving started" {
		t.Fatalf("BGSAVE = %q", v)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		info := string(mustDo(t, c, "INFO", "persistence").([]byte))
		if strings.Contains(info, "rdb_bgsave_in_progress:0") {
			if !strings.Contains(info, "rdb_last_bgsave_status:ok") {
				t.Fatalf("INFO persistence:\n%s", info)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("BGSAVE did not finish:\n%s", info)
		}
		time.Sleep(10 * time.Millisecond)
	}
	r := startRedisOnFile(t, dir, "snap.rdb")
	if v := mustDo(t, r, "GET", "k"); string(v.([]byte)) != "v" {
		t.Fatalf("GET k in Redis = %q", v)
	}
}

// While a BGSAVE runs, SAVE and BGSAVE are refused as Redis refuses them,
// and BGSAVE SCHEDULE queues one more.
func TestBgsaveInProgress(t *testing.T) {
	ts := startServer(t, "dir", t.TempDir())
	c := redistest.Dial(t, ts.addr)
	s := &ts.srv.saves
	s.mu.Lock()
	s.inProgress = true
	s.lastStart = time.Now()
	s.mu.Unlock()
	for _, cmd := range [][]any{{"SAVE"}, {"BGSAVE"}} {
		if _, err := c.Do(cmd...); err == nil || !strings.Contains(err.Error(), "ERR Background save already in progress") {
			t.Fatalf("%v during a BGSAVE: %v", cmd, err)
		}
	}
	if v := mustDo(t, c, "BGSAVE", "schedule"); string(v.([]byte)) != "Background saving scheduled" {
		t.Fatalf("BGSAVE SCHEDULE = %q", v)
	}
	if info := string(mustDo(t, c, "INFO", "persistence").([]byte)); !strings.Contains(info, "rdb_bgsave_in_progress:1") {
		t.Fatalf("INFO persistence:\n%s", info)
	}
	s.mu.Lock()
	scheduled := s.scheduled
	s.inProgress, s.scheduled = false, false
	s.mu.Unlock()
	if !scheduled {
		t.Fatal("BGSAVE SCHEDULE scheduled nothing")
	}
}

// startRedisOn runs a real redis-server on dir, loading its dump.rdb.
func startRedisOn(t testing.TB, dir string) *redistest.Conn {
	t.Helper()
	return redistest.StartOn(t, dir, "dump.rdb")
}

// startRedisOnFile runs a real redis-server loading dir/name.
func startRedisOnFile(t testing.TB, dir, name string) *redistest.Conn {
	t.Helper()
	return redistest.StartOn(t, dir, name)
}

func mustDo(t testing.TB, c *redistest.Conn, args ...any) any {
	t.Helper()
	return c.MustDo(t, args...)
}
