package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cairndb/cairn/internal/config"
	"github.com/cairndb/cairn/internal/redistest"
	"github.com/cairndb/cairn/internal/store"
	"github.com/redis/go-redis/v9"
)

// checkDataDir opens a data directory in this process, runs the store's
// size checker (every collection's size equals its members, every key
// count its keys) and returns the number of keys in db 0.
func checkDataDir(t *testing.T, dir string) int64 {
	t.Helper()
	cfg := config.Default()
	if err := cfg.ApplyArgs([]string{"--dir", dir}); err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	eng, st, err := openStorage(cfg, log)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = closeStorage(log, st, eng) }()
	if err := store.Check(st); err != nil {
		t.Fatalf("store invariants of %s: %v", dir, err)
	}
	return st.DBSize(0)
}

// loadWriters run concurrent clients that each keep writing every kind of
// collection (and a counter) until stop is closed, counting the writes
// acknowledged.
type loadWriters struct {
	acked atomic.Int64
	// counters[i] is writer i's last acknowledged INCR reply.
	counters []atomic.Int64
	wg       sync.WaitGroup
}

func startLoad(t *testing.T, addr string, writers int, stop <-chan struct{}) *loadWriters {
	t.Helper()
	l := &loadWriters{counters: make([]atomic.Int64, writers)}
	for w := range writers {
		l.wg.Add(1)
		go func() {
			defer l.wg.Done()
			c := redis.NewClient(&redis.Options{Addr: addr, PoolSize: 1, MaxRetries: -1})
			defer c.Close()
			ctx := context.Background()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				m := strconv.Itoa(i)
				k := fmt.Sprintf("w%d:", w)
				pipe := c.TxPipeline()
				pipe.RPush(ctx, k+"list", m)
				pipe.SAdd(ctx, k+"set", m)
				pipe.HSet(ctx, k+"hash", "f"+m, m)
				pipe.ZAdd(ctx, k+"zset", redis.Z{Score: float64(i), Member: m})
				pipe.Set(ctx, k+"str:"+m, m, 0)
				if i%7 == 0 {
					pipe.LPop(ctx, k+"list")
					pipe.SRem(ctx, k+"set", strconv.Itoa(i/2))
				}
				incr := pipe.Incr(ctx, k+"counter")
				if _, err := pipe.Exec(ctx); err != nil {
					t.Errorf("writer %d: %v", w, err)
					return
				}
				l.counters[w].Store(incr.Val())
				l.acked.Add(1)
			}
		}()
	}
	return l
}

// A backup taken while clients write, through `cairn backup --addr` and
// through the BACKUP command, opens as a data directory whose every
// collection is whole (the size checker passes), holds every write
// acknowledged before the backup began, and serves as a server's data
// directory, directly or after `cairn restore`.
func TestBackupUnderWriteLoad(t *testing.T) {
	bin := buildCairn(t)
	root := t.TempDir()
	data := filepath.Join(root, "data")
	p := startCairn(t, bin, true, 0, "--dir", data)
	addr := fmt.Sprintf("127.0.0.1:%d", p.port)
	stop := make(chan struct{})
	load := startLoad(t, addr, 4, stop)
	for load.acked.Load() < 200 {
		time.Sleep(10 * time.Millisecond)
	}

	// Through the subcommand, which sends BACKUP.
	before := make([]int64, len(load.counters))
	for i := range before {
		before[i] = load.counters[i].Load()
	}
	viaCLI := filepath.Join(root, "b1")
	out, err := exec.Command(bin, "backup", "--addr", addr, viaCLI).CombinedOutput()
	if err != nil {
		t.Fatalf("cairn backup --addr: %v\n%s", err, out)
	}
	// Through the command, with a path relative to the data directory's
	// parent; the same directory again is refused.
	for load.acked.Load() < 400 {
		time.Sleep(10 * time.Millisecond)
	}
	c := p.client(t)
	ctx := context.Background()
	if err := c.Do(ctx, "BACKUP", "b2").Err(); err != nil {
		t.Fatalf("BACKUP b2: %v", err)
	}
	if err := c.Do(ctx, "BACKUP", "b2").Err(); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Fatalf("BACKUP into an existing directory: %v", err)
	}
	// The offline form refuses a data directory in use.
	out, err = exec.Command(bin, "backup", data, filepath.Join(root, "b-offline")).CombinedOutput()
	if err == nil || !bytes.Contains(out, []byte("--addr")) {
		t.Fatalf("cairn backup of a directory in use: %v\n%s", err, out)
	}
	close(stop)
	load.wg.Wait()
	if t.Failed() {
		return
	}
	liveKeys, err := c.DBSize(ctx).Result()
	if err != nil {
		t.Fatal(err)
	}
	shutdown(t, p)
	p.wait(t)

	// The CLI's backup, restored into a new directory, checked offline.
	restored := filepath.Join(root, "restored")
	out, err = exec.Command(bin, "restore", viaCLI, restored).CombinedOutput()
	if err != nil {
		t.Fatalf("cairn restore: %v\n%s", err, out)
	}
	if n := checkDataDir(t, restored); n == 0 || n > liveKeys {
		t.Fatalf("the restored backup holds %d keys; the server ended with %d", n, liveKeys)
	}
	q := startCairn(t, bin, true, 0, "--dir", restored)
	rc := q.client(t)
	for i, want := range before {
		got, err := rc.Get(ctx, fmt.Sprintf("w%d:counter", i)).Int64()
		if err != nil || got < want {
			t.Errorf("writer %d's counter in the backup is %d (%v); %d was acknowledged before the backup began", i, got, err, want)
		}
	}
	shutdown(t, q)
	q.wait(t)

	// The command's backup is a data directory a server starts on.
	b2 := filepath.Join(root, "b2")
	s := startCairn(t, bin, true, 0, "--dir", b2)
	if n, err := s.client(t).DBSize(ctx).Result(); err != nil || n == 0 || n > liveKeys {
		t.Fatalf("a server on the BACKUP directory has %d keys (%v); the source ended with %d", n, err, liveKeys)
	}
	shutdown(t, s)
	s.wait(t)
	checkDataDir(t, b2)

	// Offline, with the server stopped: the whole data directory.
	offline := filepath.Join(root, "b-offline")
	out, err = exec.Command(bin, "backup", data, offline).CombinedOutput()
	if err != nil {
		t.Fatalf("cairn backup offline: %v\n%s", err, out)
	}
	if n := checkDataDir(t, offline); n != liveKeys {
		t.Fatalf("the offline backup holds %d keys, the server had %d", n, liveKeys)
	}
	for _, args := range [][]string{
		{"backup", data, offline}, // exists
		{"backup", filepath.Join(root, "nope"), filepath.Join(root, "x")}, // no data dir
		{"restore", viaCLI, restored},                                     // exists
		{"backup", "--addr"},
	} {
		if out, err := exec.Command(bin, args...).CombinedOutput(); err == nil {
			t.Errorf("cairn %v succeeded:\n%s", args, out)
		}
	}
}

// `cairn export` writes a data directory as an RDB file that the real
// Redis loads with every key, value and deadline, in every database, and
// the function libraries.
func TestExportLoadsInRedis(t *testing.T) {
	bin := buildCairn(t)
	root := t.TempDir()
	data := filepath.Join(root, "data")
	p := startCairn(t, bin, true, 0, "--dir", data)
	c := redistest.Dial(t, fmt.Sprintf("127.0.0.1:%d", p.port))
	do := func(c *redistest.Conn, args ...any) any { return mustDo(t, c, args...) }
	do(c, "SET", "str", "hello")
	do(c, "SET", "num", 12345)
	do(c, "SET", "ttl", strings.Repeat("long ", 100), "PX", 900000)
	do(c, "RPUSH", "list", "a", "b", "c")
	do(c, "SADD", "set", 1, 2, "x")
	do(c, "ZADD", "zset", 1, "one", "-inf", "low", 2.5, "two")
	do(c, "HSET", "hash", "f", "v", "g", "w")
	for i := range 300 {
		do(c, "RPUSH", "biglist", i)
		do(c, "SADD", "bigset", fmt.Sprintf("m%d", i))
		do(c, "ZADD", "bigzset", i, fmt.Sprintf("m%d", i))
		do(c, "HSET", "bighash", fmt.Sprintf("f%d", i), i)
	}
	do(c, "EXPIRE", "bighash", 3000)
	do(c, "FUNCTION", "LOAD", "#!lua name=exportlib\nredis.register_function('exported', function() return 9 end)")
	do(c, "SELECT", 4)
	do(c, "SET", "four", "4", "EX", 700)
	do(c, "SADD", "set4", "a")
	shutdown(t, p)
	p.wait(t)

	file := filepath.Join(root, "out.rdb")
	out, err := exec.Command(bin, "export", data, file).CombinedOutput()
	if err != nil || !bytes.Contains(out, []byte("exported")) {
		t.Fatalf("cairn export: %v\n%s", err, out)
	}
	if check, err := exec.LookPath("redis-check-rdb"); err == nil {
		out, err := exec.Command(check, file).CombinedOutput()
		if err != nil || !bytes.Contains(out, []byte("RDB looks OK")) {
			t.Fatalf("redis-check-rdb: %v\n%s", err, out)
		}
	}
	r := redistest.StartOn(t, root, "out.rdb")
	p = startCairn(t, bin, true, 0, "--dir", data)
	c = redistest.Dial(t, fmt.Sprintf("127.0.0.1:%d", p.port))
	compared := 0
	for _, db := range []int{0, 4} {
		do(c, "SELECT", db)
		do(r, "SELECT", db)
		keys := do(c, "KEYS", "*").([]any)
		if n := do(r, "DBSIZE").(int64); int(n) != len(keys) {
			t.Errorf("db %d: Redis loaded %d keys, Cairn has %d", db, n, len(keys))
		}
		for _, k := range keys {
			key := k.([]byte)
			if a, b := do(r, "TYPE", key), do(c, "TYPE", key); !bytes.Equal(a.([]byte), b.([]byte)) {
				t.Errorf("db %d key %s: Redis type %s, Cairn %s", db, key, a, b)
				continue
			}
			if a, b := do(r, "PEXPIRETIME", key), do(c, "PEXPIRETIME", key); a != b {
				t.Errorf("db %d key %s: Redis deadline %v, Cairn %v", db, key, a, b)
			}
			want := normalized(t, do(c, "DUMP", key).([]byte))
			got := normalized(t, do(r, "DUMP", key).([]byte))
			if !reflect.DeepEqual(got, want) {
				t.Errorf("db %d key %s: Redis %+v, Cairn %+v", db, key, got, want)
			}
			compared++
		}
	}
	if compared != 13 {
		t.Fatalf("compared %d keys", compared)
	}
	if v := do(r, "FCALL", "exported", 0); v != int64(9) {
		t.Fatalf("FCALL in Redis: %v", v)
	}
	// A directory in use, or that is no data directory, is refused.
	for _, args := range [][]string{{"export", data, file}, {"export", root, file}, {"export", data}} {
		if out, err := exec.Command(bin, args...).CombinedOutput(); err == nil {
			t.Errorf("cairn %v succeeded:\n%s", args, out)
		}
	}
	if _, err := os.Stat(file); err != nil {
		t.Fatal(err)
	}
}

// `cairn backup --addr` authenticates when the server asks for a password,
// and reports the server's refusal.
func TestBackupAddrWithPassword(t *testing.T) {
	bin := buildCairn(t)
	root := t.TempDir()
	p := startCairn(t, bin, true, 0, "--dir", filepath.Join(root, "data"), "--requirepass", "pw")
	addr := fmt.Sprintf("127.0.0.1:%d", p.port)
	var out bytes.Buffer
	if err := runBackup([]string{"--addr", addr, filepath.Join(root, "b")}, &out); err == nil || !strings.Contains(err.Error(), "NOAUTH") {
		t.Fatalf("backup without the password: %v", err)
	}
	if err := runBackup([]string{"--addr", addr, "--password", "bad", filepath.Join(root, "b")}, &out); err == nil || !strings.Contains(err.Error(), "WRONGPASS") {
		t.Fatalf("backup with a wrong password: %v", err)
	}
	if err := runBackup([]string{"--addr", addr, "--password", "pw", filepath.Join(root, "b")}, &out); err != nil {
		t.Fatalf("backup with the password: %v", err)
	}
	if err := isDataDir(filepath.Join(root, "b")); err != nil {
		t.Fatal(err)
	}
}
