package server

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cairndb/cairn/internal/redistest"
)

// infoField reads one field of an INFO section.
func infoField(t *testing.T, c *redistest.Conn, section, field string) string {
	t.Helper()
	v := mustDo(t, c, "INFO", section)
	for _, line := range strings.Split(string(v.([]byte)), "\r\n") {
		if k, val, ok := strings.Cut(line, ":"); ok && k == field {
			return val
		}
	}
	return ""
}

// seedEveryType writes keys of every type, with and without deadlines, in
// databases 0 and 3, and a function library.
func seedEveryType(t *testing.T, c *redistest.Conn) {
	t.Helper()
	for _, db := range []int{0, 3} {
		mustDo(t, c, "SELECT", db)
		mustDo(t, c, "SET", "str", "hello")
		mustDo(t, c, "SET", "num", 12345)
		mustDo(t, c, "SET", "ttl", "x", "PX", 900000)
		mustDo(t, c, "RPUSH", "list", "a", "b", "c")
		mustDo(t, c, "SADD", "intset", 1, 2, 3)
		mustDo(t, c, "SADD", "set", "a", "b")
		mustDo(t, c, "ZADD", "zset", 1, "one", "-inf", "low", 2.5, "two")
		mustDo(t, c, "HSET", "hash", "f", "v", "g", "w")
		for i := range 300 {
			mustDo(t, c, "RPUSH", "biglist", i)
			mustDo(t, c, "HSET", "bighash", fmt.Sprintf("f%d", i), strings.Repeat("v", i%80))
			mustDo(t, c, "ZADD", "bigzset", i, fmt.Sprintf("m%d", i))
			mustDo(t, c, "SADD", "bigset", fmt.Sprintf("s%d", i))
		}
		mustDo(t, c, "EXPIRE", "bighash", 3000)
	}
	mustDo(t, c, "SELECT", 0)
	mustDo(t, c, "FUNCTION", "LOAD", "#!lua name=repllib\nredis.register_function('replfn', function() return 7 end)")
}

// writeLoad runs a bounded mixed write load on the master from a few
// connections: every type, deadlines, deletes, MULTI/EXEC and two
// databases.
func writeLoad(t *testing.T, addr string, seed int64, ops int) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for w := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			conn, err := net.Dial("tcp", addr)
			if err != nil {
				errs <- err
				return
			}
			defer conn.Close()
			br := bufio.NewReader(conn)
			rng := rand.New(rand.NewSource(seed + int64(w)))
			do := func(args ...string) error {
				var b []byte
				b = fmt.Appendf(b, "*%d\r\n", len(args))
				for _, a := range args {
					b = fmt.Appendf(b, "$%d\r\n%s\r\n", len(a), a)
				}
				if _, err := conn.Write(b); err != nil {
					return err
				}
				reply, err := redistest.ReadRaw(br, nil)
				if err == nil && len(reply) > 0 && reply[0] == '-' {
					err = fmt.Errorf("%q: %s", args, reply)
				}
				return err
			}
			db := "0"
			if w == 2 {
				db = "3"
			}
			if err := do("AUTH", "masterpw"); err != nil {
				errs <- err
				return
			}
			if err := do("SELECT", db); err != nil {
				errs <- err
				return
			}
			for i := range ops {
				k := strconv.Itoa(rng.Intn(200))
				v := strconv.Itoa(i)
				var err error
				switch rng.Intn(12) {
				case 0:
					err = do("SET", "s:"+k, v)
				case 1:
					err = do("INCRBY", "n:"+k, v)
				case 2:
					err = do("RPUSH", "l:"+k, v, v+"x")
				case 3:
					err = do("LPOP", "l:"+k)
				case 4:
					err = do("SADD", "set:"+k, v)
				case 5:
					err = do("ZADD", "z:"+k, strconv.Itoa(rng.Intn(1000)), "m"+v)
				case 6:
					err = do("HSET", "h:"+k, "f"+strconv.Itoa(rng.Intn(20)), v)
				case 7:
					err = do("DEL", "s:"+k, "set:"+k)
				case 8:
					err = do("SET", "e:"+k, v, "EX", "1000")
				case 9:
					err = do("MULTI")
					if err == nil {
						err = do("INCR", "tx:"+k)
					}
					if err == nil {
						err = do("SADD", "txset", k)
					}
					if err == nil {
						err = do("EXEC")
					}
				case 10:
					err = do("SPOP", "set:"+k)
				case 11:
					err = do("EXPIRE", "h:"+k, "5000")
				}
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

// waitInSync waits until the replica has processed all the master wrote.
func waitInSync(t *testing.T, master, replica *redistest.Conn) {
	t.Helper()
	waitUntil(t, 30*time.Second, "the replica to catch up", func() bool {
		m := infoField(t, master, "replication", "master_repl_offset")
		return m != "" && infoField(t, replica, "replication", "slave_repl_offset") == m &&
			infoField(t, replica, "replication", "master_link_status") == "up"
	})
}

// compareAll compares every key of the databases in both servers: type,
// deadline (to the second) and value.
func compareAll(t *testing.T, master, replica *redistest.Conn, dbs ...int) int {
	t.Helper()
	compared := 0
	for _, db := range dbs {
		mustDo(t, master, "SELECT", db)
		mustDo(t, replica, "SELECT", db)
		keys := mustDo(t, master, "KEYS", "*").([]any)
		if n := mustDo(t, replica, "DBSIZE").(int64); int(n) != len(keys) {
			t.Errorf("db %d: master has %d keys, replica %d", db, len(keys), n)
		}
		for _, k := range keys {
			key := k.([]byte)
			if a, b := mustDo(t, master, "TYPE", key), mustDo(t, replica, "TYPE", key); !bytes.Equal(a.([]byte), b.([]byte)) {
				t.Errorf("db %d key %s: master type %s, replica %s", db, key, a, b)
				continue
			}
			a, b := mustDo(t, master, "PEXPIRETIME", key).(int64), mustDo(t, replica, "PEXPIRETIME", key).(int64)
			if (a < 0) != (b < 0) || a-b > 1000 || b-a > 1000 {
				t.Errorf("db %d key %s: master deadline %d, replica %d", db, key, a, b)
			}
			want := normalizedDump(t, mustDo(t, master, "DUMP", key).([]byte))
			got := normalizedDump(t, mustDo(t, replica, "DUMP", key).([]byte))
			if !reflect.DeepEqual(got, want) {
				t.Errorf("db %d key %s: master %+v, replica %+v", db, key, want, got)
			}
			compared++
		}
	}
	mustDo(t, master, "SELECT", 0)
	mustDo(t, replica, "SELECT", 0)
	return compared
}

// A real Redis master under a write load: Cairn syncs (disk-backed and
// diskless transfers), follows the stream, and matches key by key; the
// master sees it online at its offset; a cut link resumes with +CONTINUE;
// REPLICAOF NO ONE keeps the data.
func TestReplicaOfRedis(t *testing.T) {
	if _, err := exec.LookPath("redis-server"); err != nil {
		t.Skip("redis-server is not installed")
	}
	for _, diskless := range []string{"no", "yes"} {
		t.Run("diskless="+diskless, func(t *testing.T) {
			master := startRedisOn(t, t.TempDir())
			mustDo(t, master, "CONFIG", "SET", "repl-diskless-sync", diskless)
			mustDo(t, master, "CONFIG", "SET", "repl-diskless-sync-delay", "0")
			mustDo(t, master, "CONFIG", "SET", "requirepass", "masterpw")
			mustDo(t, master, "AUTH", "masterpw")
			seedEveryType(t, master)
			_, port, _ := net.SplitHostPort(master.Addr())

			ts := startServer(t, "dir", t.TempDir(), "masterauth", "masterpw")
			c := redistest.Dial(t, ts.addr)
			mustDo(t, c, "SET", "old", "replaced by the master's data")
			if v := mustDo(t, c, "REPLICAOF", "127.0.0.1", port); string(v.([]byte)) != "OK" {
				t.Fatalf("REPLICAOF = %q", v)
			}
			if v := mustDo(t, c, "REPLICAOF", "127.0.0.1", port); string(v.([]byte)) != "OK Already connected to specified master" {
				t.Fatalf("second REPLICAOF = %q", v)
			}
			load := make(chan struct{})
			go func() {
				defer close(load)
				writeLoad(t, master.Addr(), 1, 1500)
			}()
			waitUntil(t, 30*time.Second, "the link", func() bool {
				return infoField(t, c, "replication", "master_link_status") == "up"
			})
			if _, err := c.Do("SET", "x", "y"); err == nil || !strings.Contains(err.Error(), "READONLY You can't write against a read only replica.") {
				t.Errorf("SET on the replica: %v", err)
			}
			<-load
			waitInSync(t, master, c)
			n := compareAll(t, master, c, 0, 3)
			t.Logf("compared %d keys after the load", n)
			if n < 30 {
				t.Fatalf("compared only %d keys", n)
			}
			if v := mustDo(t, c, "FCALL", "replfn", 0); v != int64(7) {
				t.Errorf("FCALL on the replica = %v", v)
			}

			// The master sees the replica online at its offset.
			waitUntil(t, 10*time.Second, "the master to see the replica's ACK", func() bool {
				off := infoField(t, master, "replication", "master_repl_offset")
				s := infoField(t, master, "replication", "slave0")
				return strings.Contains(s, "state=online") && strings.Contains(s, "offset="+off+",") &&
					strings.Contains(s, "port="+strconv.Itoa(ts.cfg.Port()))
			})
			// WAIT on the master is answered by the replica's ACK to
			// REPLCONF GETACK.
			mustDo(t, master, "SET", "waited", "1")
			if v := mustDo(t, master, "WAIT", 1, 5000); v != int64(1) {
				t.Errorf("WAIT 1 on the master = %v", v)
			}
			role := mustDo(t, c, "ROLE").([]any)
			if string(role[0].([]byte)) != "slave" || string(role[3].([]byte)) != "connected" || role[2] != mustInt(t, port) {
				t.Errorf("ROLE = %q", role)
			}

			// Cut the link: the replica resumes where it was.
			fulls := infoField(t, master, "stats", "sync_full")
			mustDo(t, master, "CLIENT", "KILL", "TYPE", "replica")
			writeLoad(t, master.Addr(), 2, 300)
			waitUntil(t, 30*time.Second, "a partial resync", func() bool {
				return infoField(t, master, "stats", "sync_partial_ok") == "1"
			})
			if got := infoField(t, master, "stats", "sync_full"); got != fulls {
				t.Errorf("sync_full went from %s to %s: the link did not resume", fulls, got)
			}
			waitInSync(t, master, c)
			compareAll(t, master, c, 0, 3)

			// Promotion keeps the data and allows writes.
			before := mustDo(t, c, "DBSIZE")
			mustDo(t, c, "REPLICAOF", "NO", "ONE")
			if got := infoField(t, c, "replication", "role"); got != "master" {
				t.Errorf("role after NO ONE = %q", got)
			}
			if got := mustDo(t, c, "DBSIZE"); got != before {
				t.Errorf("DBSIZE %v after promotion, was %v", got, before)
			}
			mustDo(t, c, "SET", "x", "y")
			mustDo(t, master, "SET", "after-promotion", "1")
			time.Sleep(200 * time.Millisecond)
			if v, _ := c.Do("EXISTS", "after-promotion"); v != int64(0) {
				t.Errorf("a promoted replica still applies the master's writes")
			}
		})
	}
}

func mustInt(t *testing.T, s string) int64 {
	t.Helper()
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// REPLICAOF's and REPLCONF's errors and replies, and INFO's fields of a
// replica whose master is not there.
func TestReplicaOfCommand(t *testing.T) {
	ts := startServer(t, "dir", t.TempDir())
	c := redistest.Dial(t, ts.addr)
	for _, tc := range []struct {
		args []any
		want string
	}{
		{[]any{"REPLICAOF", "localhost", "x"}, "ERR Invalid master port"},
		{[]any{"REPLICAOF", "localhost", "65536"}, "ERR Invalid master port"},
		{[]any{"REPLICAOF", "localhost", "-1"}, "ERR Invalid master port"},
		{[]any{"REPLCONF", "listening-port"}, "ERR syntax error"},
		{[]any{"REPLCONF", "listening-port", "x"}, "ERR value is not an integer or out of range"},
		{[]any{"REPLCONF", "rdb-only", "2"}, "ERR value is out of range, value must between 0 and 1"},
		{[]any{"REPLCONF", "nope", "1"}, "ERR Unrecognized REPLCONF option: nope"},
		{[]any{"REPLCONF", "rdb-filter-only", "keys"}, "ERR Unsupported rdb-filter-only option: keys"},
	} {
		_, err := c.Do(tc.args...)
		if err == nil || err.Error() != tc.want+": "+redistest.ErrReply.Error() && !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want %s", tc.args, err, tc.want)
		}
	}
	if v := mustDo(t, c, "REPLCONF", "listening-port", "1", "capa", "eof", "capa", "psync2"); string(v.([]byte)) != "OK" {
		t.Errorf("REPLCONF = %q", v)
	}
	role := mustDo(t, c, "ROLE").([]any)
	if len(role) != 3 || string(role[0].([]byte)) != "master" || role[1] != int64(0) || len(role[2].([]any)) != 0 {
		t.Errorf("ROLE of a master = %q", role)
	}
	// A master that is not there: the replica is down and says so.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	ln.Close()
	mustDo(t, c, "SLAVEOF", "127.0.0.1", port)
	if v := mustDo(t, c, "CONFIG", "GET", "slaveof").([]any); string(v[1].([]byte)) != "127.0.0.1 "+port {
		t.Errorf("CONFIG GET slaveof = %q", v)
	}
	for field, want := range map[string]string{"role": "slave", "master_host": "127.0.0.1", "master_port": port,
		"master_link_status": "down", "master_last_io_seconds_ago": "-1", "master_sync_in_progress": "0",
		"slave_repl_offset": "1", "slave_read_only": "1", "connected_slaves": "0", "master_link_down_since_seconds": "-1"} {
		if got := infoField(t, c, "replication", field); got != want {
			t.Errorf("INFO %s = %q, want %q", field, got, want)
		}
	}
	if _, err := c.Do("SYNC"); err == nil || !strings.Contains(err.Error(), "NOMASTERLINK") {
		t.Errorf("SYNC on a replica without its master: %v", err)
	}
	if _, err := c.Do("DEL", "k"); err == nil || !strings.Contains(err.Error(), "READONLY") {
		t.Errorf("DEL on a replica: %v", err)
	}
	if _, err := c.Do("EVAL", "return redis.call('set', 'k', 'v')", "0"); err == nil || !strings.Contains(err.Error(), "READONLY") {
		t.Errorf("a script's write on a replica: %v", err)
	}
	mustDo(t, c, "CONFIG", "SET", "replica-read-only", "no")
	mustDo(t, c, "SET", "k", "v")
	mustDo(t, c, "REPLICAOF", "NO", "ONE")
	if got := infoField(t, c, "replication", "role"); got != "master" {
		t.Errorf("role = %q", got)
	}
	if v := mustDo(t, c, "CONFIG", "GET", "replicaof").([]any); string(v[1].([]byte)) != "" {
		t.Errorf("CONFIG GET replicaof after NO ONE = %q", v)
	}
}

// A master that sends a corrupt RDB leaves the replica's data as it was,
// and the replica keeps trying.
func TestReplicaGarbageMaster(t *testing.T) {
	ts := startServer(t, "dir", t.TempDir())
	c := redistest.Dial(t, ts.addr)
	mustDo(t, c, "SET", "keep", "me")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	attempts := make(chan struct{}, 16)
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer conn.Close()
				br := bufio.NewReader(conn)
				replies := []string{"+PONG\r\n", "+OK\r\n", "+OK\r\n",
					"+FULLRESYNC " + strings.Repeat("f", 40) + " 0\r\n$20\r\nREDIS0010 not an RDB"}
				for _, reply := range replies { // PING, REPLCONF x2, PSYNC
					if _, err := redistest.ReadRaw(br, nil); err != nil {
						return
					}
					if _, err := io.WriteString(conn, reply); err != nil {
						return
					}
				}
				attempts <- struct{}{}
			}()
		}
	}()
	mustDo(t, c, "REPLICAOF", "127.0.0.1", strconv.Itoa(ln.Addr().(*net.TCPAddr).Port))
	for range 2 {
		select {
		case <-attempts:
		case <-time.After(10 * time.Second):
			t.Fatal("the replica did not retry")
		}
	}
	if v := mustDo(t, c, "GET", "keep"); string(v.([]byte)) != "me" {
		t.Errorf("GET keep = %q", v)
	}
	mustDo(t, c, "REPLICAOF", "NO", "ONE")
}

// redis-cli --rdb against Cairn gets an RDB that redis-check-rdb accepts
// and redis-server loads with the same data; PSYNC answers +FULLRESYNC.
func TestRedisCliRDB(t *testing.T) {
	cli, err := exec.LookPath("redis-cli")
	if err != nil {
		t.Skip("redis-cli is not installed")
	}
	ts := startServer(t, "dir", t.TempDir())
	c := redistest.Dial(t, ts.addr)
	seedEveryType(t, c)
	host, port, _ := net.SplitHostPort(ts.addr)
	dir := t.TempDir()
	file := filepath.Join(dir, "dump.rdb")
	out, err := exec.Command(cli, "-h", host, "-p", port, "--rdb", file).CombinedOutput()
	if err != nil {
		t.Fatalf("redis-cli --rdb: %v\n%s", err, out)
	}
	if check, err := exec.LookPath("redis-check-rdb"); err == nil {
		out, err := exec.Command(check, file).CombinedOutput()
		if err != nil || !bytes.Contains(out, []byte("RDB looks OK")) {
			t.Fatalf("redis-check-rdb: %v\n%s", err, out)
		}
	}
	r := startRedisOn(t, dir)
	if n := compareAll(t, c, r, 0, 3); n < 20 {
		t.Fatalf("compared %d keys", n)
	}
	if v := mustDo(t, r, "FCALL", "replfn", 0); v != int64(7) {
		t.Errorf("FCALL in Redis = %v", v)
	}

	// --functions-rdb: the libraries only.
	fns := filepath.Join(dir, "functions.rdb")
	if out, err := exec.Command(cli, "-h", host, "-p", port, "--functions-rdb", fns).CombinedOutput(); err != nil {
		t.Fatalf("redis-cli --functions-rdb: %v\n%s", err, out)
	}
	data, err := os.ReadFile(fns)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(data, []byte("repllib")) || bytes.Contains(data, []byte("bighash")) {
		t.Errorf("functions-only RDB of %d bytes holds the wrong parts", len(data))
	}

	// PSYNC from a replica without capa eof: +FULLRESYNC, a sized
	// payload, then the connection closes.
	conn, err := net.Dial("tcp", ts.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(conn, "*3\r\n$5\r\nPSYNC\r\n$1\r\n?\r\n$2\r\n-1\r\n"); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(conn)
	line, _ := br.ReadString('\n')
	if f := strings.Fields(line); len(f) != 3 || f[0] != "+FULLRESYNC" || len(f[1]) != 40 || f[2] != "0" {
		t.Fatalf("PSYNC reply %q", line)
	}
	line, _ = br.ReadString('\n')
	size, err := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(line, "$")))
	if err != nil {
		t.Fatalf("payload header %q", line)
	}
	payload := make([]byte, size)
	if _, err := io.ReadFull(br, payload); err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(payload, []byte("REDIS0010")) {
		t.Errorf("payload starts %q", payload[:min(9, len(payload))])
	}
	if _, err := br.ReadByte(); !errors.Is(err, io.EOF) {
		t.Errorf("after the payload: %v, want the connection closed", err)
	}
}

// While the master's dataset loads, a replica answers LOADING to every
// command not allowed during a load, and READONLY to writes first, as
// Redis checks them in that order.
func TestReplicaLoadingRefuses(t *testing.T) {
	ts := startServer(t)
	c := redistest.Dial(t, ts.addr)
	ts.srv.repl.active.Store(true)
	ts.srv.repl.loading.Store(true)
	for _, tc := range []struct {
		args []any
		want string
	}{
		{[]any{"GET", "k"}, "LOADING Redis is loading the dataset in memory"},
		{[]any{"PING"}, "LOADING Redis is loading the dataset in memory"},
		{[]any{"SET", "k", "v"}, "READONLY You can't write against a read only replica."},
	} {
		if _, err := c.Do(tc.args...); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v while loading: %v, want %s", tc.args, err, tc.want)
		}
	}
	if got := infoField(t, c, "persistence", "loading"); got != "1" {
		t.Errorf("INFO loading = %q", got)
	}
	ts.srv.repl.loading.Store(false)
	ts.srv.repl.active.Store(false)
	mustDo(t, c, "SET", "k", "v")
}

// The replicaof setting starts the server as a replica.
func TestReplicaOfSettingAtStart(t *testing.T) {
	if _, err := exec.LookPath("redis-server"); err != nil {
		t.Skip("redis-server is not installed")
	}
	master := startRedisOn(t, t.TempDir())
	mustDo(t, master, "CONFIG", "SET", "repl-diskless-sync-delay", "0")
	mustDo(t, master, "SET", "k", "v")
	_, port, _ := net.SplitHostPort(master.Addr())
	ts := startServer(t, "dir", t.TempDir(), "replicaof", "127.0.0.1 "+port)
	c := redistest.Dial(t, ts.addr)
	waitInSync(t, master, c)
	if v := mustDo(t, c, "GET", "k"); string(v.([]byte)) != "v" {
		t.Errorf("GET k = %q", v)
	}
	if v := mustDo(t, c, "CONFIG", "GET", "replicaof").([]any); string(v[1].([]byte)) != "127.0.0.1 "+port {
		t.Errorf("CONFIG GET replicaof = %q", v)
	}
	// The master's client is listed, and killing it drops the link, which
	// resumes where it was.
	if v := string(mustDo(t, c, "CLIENT", "LIST", "TYPE", "master").([]byte)); !strings.Contains(v, "flags=M ") || strings.Count(v, "\n") != 1 {
		t.Errorf("CLIENT LIST TYPE master = %q", v)
	}
	if v := mustDo(t, c, "CLIENT", "KILL", "TYPE", "master"); v != int64(1) {
		t.Errorf("CLIENT KILL TYPE master = %v", v)
	}
	mustDo(t, master, "SET", "k2", "v2")
	waitUntil(t, 10*time.Second, "a partial resync", func() bool {
		return infoField(t, master, "stats", "sync_partial_ok") == "1"
	})
	waitInSync(t, master, c)
	if v := mustDo(t, c, "GET", "k2"); string(v.([]byte)) != "v2" {
		t.Errorf("GET k2 = %q", v)
	}
	if got := infoField(t, master, "stats", "sync_full"); got != "1" {
		t.Errorf("sync_full = %s", got)
	}
}

// A link down for longer than the master's backlog holds ends in a full
// resync, after which the replica matches again.
func TestReplicaFullResyncAfterBacklogLoss(t *testing.T) {
	if _, err := exec.LookPath("redis-server"); err != nil {
		t.Skip("redis-server is not installed")
	}
	master := startRedisOn(t, t.TempDir())
	mustDo(t, master, "CONFIG", "SET", "repl-diskless-sync-delay", "0")
	mustDo(t, master, "CONFIG", "SET", "repl-backlog-size", "16384")
	mustDo(t, master, "CONFIG", "SET", "requirepass", "masterpw")
	mustDo(t, master, "AUTH", "masterpw")
	_, port, _ := net.SplitHostPort(master.Addr())
	ts := startServer(t, "dir", t.TempDir(), "masterauth", "masterpw")
	c := redistest.Dial(t, ts.addr)
	mustDo(t, c, "REPLICAOF", "127.0.0.1", port)
	writeLoad(t, master.Addr(), 3, 200)
	waitInSync(t, master, c)

	// The replica cannot get back in while the master takes 100 KB of
	// writes, more than its backlog holds.
	mustDo(t, master, "CONFIG", "SET", "requirepass", "other")
	mustDo(t, master, "CLIENT", "KILL", "TYPE", "replica")
	waitUntil(t, 10*time.Second, "the link to go down", func() bool {
		return infoField(t, c, "replication", "master_link_status") == "down"
	})
	for i := range 100 {
		mustDo(t, master, "SET", fmt.Sprintf("big:%d", i), strings.Repeat("x", 1000))
	}
	mustDo(t, master, "CONFIG", "SET", "requirepass", "masterpw")
	writeLoad(t, master.Addr(), 4, 100)
	waitInSync(t, master, c)
	if got := infoField(t, master, "stats", "sync_full"); got != "2" {
		t.Errorf("sync_full = %s, want 2 (a second full resync)", got)
	}
	compareAll(t, master, c, 0, 3)
}

// The master's stream runs as no user at all, as in Redis: a default user
// restricted by ACL on the replica does not refuse the master's writes.
func TestReplicaAppliesDespiteRestrictedDefaultUser(t *testing.T) {
	if _, err := exec.LookPath("redis-server"); err != nil {
		t.Skip("redis-server is not installed")
	}
	master := startRedisOn(t, t.TempDir())
	mustDo(t, master, "SET", "before", "1")
	_, port, _ := net.SplitHostPort(master.Addr())
	ts := startServer(t, "dir", t.TempDir())
	c := redistest.Dial(t, ts.addr)
	mustDo(t, c, "ACL", "SETUSER", "default", "resetkeys", "-@write")
	mustDo(t, c, "REPLICAOF", "127.0.0.1", port)
	waitInSync(t, master, c)
	mustDo(t, master, "SET", "after", "2")
	mustDo(t, master, "HSET", "h", "f", "v")
	waitInSync(t, master, c)
	mustDo(t, c, "ACL", "SETUSER", "default", "allkeys")
	if n := compareAll(t, master, c, 0); n != 3 {
		t.Errorf("%d keys compared, want 3", n)
	}
	if got := infoField(t, c, "stats", "acl_access_denied_cmd"); got != "0" {
		t.Errorf("acl_access_denied_cmd = %s after replication", got)
	}
	mustDo(t, c, "REPLICAOF", "NO", "ONE")
}
