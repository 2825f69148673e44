package server

import (
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cairndb/cairn/internal/redistest"
)

// infoOmitted are the fields of real Redis's INFO that Cairn leaves out,
// each for a reason: they describe machinery Cairn does not have (fork and
// copy-on-write, jemalloc, defragmentation, the Lua memory a Redis VM
// reports, replication buffers, RDB loading counters) or a figure it does
// not keep. Every other field of Redis's INFO everything must be in
// Cairn's, in the same section.
var infoOmitted = map[string]string{
	"lru_clock":                      "no LRU clock: data lives on disk",
	"used_memory_overhead":           "no split of a disk store's memory into dataset and overhead",
	"used_memory_dataset":            "the dataset is on disk",
	"used_memory_dataset_perc":       "the dataset is on disk",
	"used_memory_lua":                "gopher-lua does not report its memory",
	"used_memory_vm_eval":            "gopher-lua does not report its memory",
	"used_memory_lua_human":          "gopher-lua does not report its memory",
	"used_memory_scripts_eval":       "gopher-lua does not report its memory",
	"used_memory_vm_functions":       "gopher-lua does not report its memory",
	"used_memory_vm_total":           "gopher-lua does not report its memory",
	"used_memory_vm_total_human":     "gopher-lua does not report its memory",
	"used_memory_functions":          "gopher-lua does not report its memory",
	"used_memory_scripts":            "gopher-lua does not report its memory",
	"used_memory_scripts_human":      "gopher-lua does not report its memory",
	"current_cow_peak":               "no fork",
	"current_cow_size":               "no fork",
	"current_cow_size_age":           "no fork",
	"current_fork_perc":              "no fork",
	"current_save_keys_processed":    "a save's progress is not tracked",
	"current_save_keys_total":        "a save's progress is not tracked",
	"rdb_last_cow_size":              "no fork",
	"rdb_last_load_keys_expired":     "Cairn loads no RDB at start",
	"rdb_last_load_keys_loaded":      "Cairn loads no RDB at start",
	"aof_last_cow_size":              "no fork",
	"module_fork_in_progress":        "no modules, no fork",
	"module_fork_last_cow_size":      "no modules, no fork",
	"expired_stale_perc":             "the expiry index finds every expired key; nothing is sampled",
	"total_eviction_exceeded_time":   "no eviction",
	"current_eviction_exceeded_time": "no eviction",
	"latest_fork_usec":               "no fork",
	"total_forks":                    "no fork",
	"slave_expires_tracked_keys":     "no replication",
	"active_defrag_hits":             "no defragmentation",
	"active_defrag_misses":           "no defragmentation",
	"active_defrag_key_hits":         "no defragmentation",
	"active_defrag_key_misses":       "no defragmentation",
	"total_active_defrag_time":       "no defragmentation",
	"current_active_defrag_time":     "no defragmentation",
	"unexpected_error_replies":       "errors from an AOF load or a primary: neither exists",
	"dump_payload_sanitizations":     "RESTORE decodes every payload whole before storing it; there is no sanitize-dump-payload",
	"io_threaded_reads_processed":    "no I/O threads",
	"io_threaded_writes_processed":   "no I/O threads",
	"reply_buffer_shrinks":           "reply buffers are not resized",
	"reply_buffer_expands":           "reply buffers are not resized",
	"used_cpu_sys_main_thread":       "no main thread",
	"used_cpu_user_main_thread":      "no main thread",
}

// infoSectionsOf parses INFO text into its sections' field names, in order,
// and every field's value.
func infoSectionsOf(t testing.TB, text string) (titles []string, fields map[string][]string, values map[string]string) {
	t.Helper()
	fields, values = map[string][]string{}, map[string]string{}
	title := ""
	for _, l := range strings.Split(text, "\r\n") {
		switch {
		case l == "":
		case strings.HasPrefix(l, "# "):
			title = l[2:]
			titles = append(titles, title)
		default:
			k, v, ok := strings.Cut(l, ":")
			if !ok {
				t.Fatalf("INFO line %q is not key:value", l)
			}
			fields[title] = append(fields[title], k)
			values[k] = v
		}
	}
	return titles, fields, values
}

// redisInfoSetup is run on both servers before their INFO is compared.
var redisInfoSetup = [][]any{
	{"SET", "a", "b"},
	{"SET", "e", "b", "EX", "100"},
	{"HSET", "h", "f", "v"},
	{"GET", "missing"},
	{"GET", "a"},
}

// TestInfoFieldsMatchRedis compares INFO everything with real Redis's:
// every field Redis has is in Cairn's same section (but those
// infoOmitted names), the fields both have come in the same order, and
// the figures that mean the same on both agree after the same commands.
func TestInfoFieldsMatchRedis(t *testing.T) {
	real := redistest.Start(t)
	ts := startServer(t)
	ours := redistest.Dial(t, ts.addr)
	for _, c := range []*redistest.Conn{real, ours} {
		for _, args := range redisInfoSetup {
			if _, err := c.Do(args...); err != nil {
				t.Fatalf("%v: %v", args, err)
			}
		}
		// One error reply of each server.
		if _, err := c.Do("NOSUCHCOMMAND"); err == nil {
			t.Fatal("NOSUCHCOMMAND succeeded")
		}
	}
	info := func(c *redistest.Conn) string {
		v, err := c.Do("INFO", "everything")
		if err != nil {
			t.Fatal(err)
		}
		b, ok := v.([]byte)
		if !ok {
			t.Fatalf("INFO reply %T", v)
		}
		return string(b)
	}
	rTitles, rFields, rValues := infoSectionsOf(t, info(real))
	cTitles, cFields, cValues := infoSectionsOf(t, info(ours))
	for _, title := range rTitles {
		if !slices.Contains(cTitles, title) {
			t.Errorf("section %q of Redis's INFO is missing", title)
		}
	}
	for _, title := range rTitles {
		var common []string
		for _, k := range rFields[title] {
			// Per-command and per-error lines depend on the commands run.
			if strings.HasPrefix(k, "cmdstat_") || strings.HasPrefix(k, "latency_percentiles_usec_") || strings.HasPrefix(k, "errorstat_") || strings.HasPrefix(k, "db") {
				continue
			}
			if _, ok := infoOmitted[k]; ok {
				if slices.Contains(cFields[title], k) {
					t.Errorf("%s: %q is listed as omitted but is present", title, k)
				}
				continue
			}
			if !slices.Contains(cFields[title], k) {
				t.Errorf("%s: Redis's field %q is missing", title, k)
				continue
			}
			common = append(common, k)
		}
		var ourOrder []string
		for _, k := range cFields[title] {
			if slices.Contains(common, k) {
				ourOrder = append(ourOrder, k)
			}
		}
		if !slices.Equal(ourOrder, common) {
			t.Errorf("%s: fields in order %q, Redis's %q", title, ourOrder, common)
		}
	}
	same := []string{
		"redis_mode", "arch_bits", "monotonic_clock", "multiplexing_api", "process_supervised", "io_threads_active",
		"connected_clients", "cluster_connections", "blocked_clients", "tracking_clients", "clients_in_timeout_table",
		"maxmemory", "maxmemory_human", "maxmemory_policy", "mem_clients_slaves", "mem_replication_backlog",
		"loading", "async_loading", "rdb_changes_since_last_save", "rdb_saves", "rdb_bgsave_in_progress", "rdb_last_bgsave_status", "rdb_last_bgsave_time_sec",
		"rdb_current_bgsave_time_sec", "aof_rewrite_in_progress", "aof_last_bgrewrite_status", "aof_last_write_status",
		"total_commands_processed", "rejected_connections", "expired_keys", "evicted_keys", "evicted_clients",
		"keyspace_hits", "keyspace_misses", "pubsub_channels", "pubsub_patterns", "pubsubshard_channels",
		"tracking_total_keys", "total_error_replies", "total_net_repl_input_bytes", "sync_full",
		"role", "connected_slaves", "master_failover_state", "master_replid2", "master_repl_offset", "second_repl_offset",
		"repl_backlog_active", "cluster_enabled", "errorstat_ERR",
	}
	for _, k := range same {
		if rValues[k] != cValues[k] {
			t.Errorf("%s = %q, Redis %q", k, cValues[k], rValues[k])
		}
	}
	for _, cmd := range []string{"set", "hset", "get"} {
		calls := func(v string) string { c, _, _ := strings.Cut(v, ","); return c }
		if r, c := calls(rValues["cmdstat_"+cmd]), calls(cValues["cmdstat_"+cmd]); r != c {
			t.Errorf("cmdstat_%s %s, Redis %s", cmd, c, r)
		}
	}
	keys := func(v string) string { k, _, _ := strings.Cut(v, ",avg_ttl="); return k }
	if r, c := keys(rValues["db0"]), keys(cValues["db0"]); r != c {
		t.Errorf("db0:%s, Redis db0:%s", c, r)
	}
}

// TestClientListFieldsMatchRedis compares a connection's own CLIENT LIST
// and CLIENT INFO line with real Redis's: the same fields in the same
// order, and the same values where they mean the same.
func TestClientListFieldsMatchRedis(t *testing.T) {
	real := redistest.Start(t)
	ts := startServer(t)
	ours := redistest.Dial(t, ts.addr)
	for _, sub := range []string{"LIST", "INFO"} {
		line := func(c *redistest.Conn) (keys []string, f map[string]string) {
			v, err := c.Do("CLIENT", sub)
			if err != nil {
				t.Fatal(err)
			}
			return clientFields(t, strings.TrimSuffix(string(v.([]byte)), "\n"))
		}
		rKeys, rf := line(real)
		cKeys, cf := line(ours)
		// Redis 7.0 has no lib-name and lib-ver yet (7.2 added them at the end).
		if !slices.Equal(cKeys[:len(rKeys)], rKeys) {
			t.Errorf("CLIENT %s fields %q, Redis %q", sub, cKeys, rKeys)
		}
		for _, k := range []string{"name", "age", "idle", "flags", "db", "sub", "psub", "ssub", "multi", "argv-mem", "multi-mem",
			"obl", "oll", "omem", "events", "cmd", "user", "redir", "resp"} {
			if rf[k] != cf[k] {
				t.Errorf("CLIENT %s %s=%q, Redis %q", sub, k, cf[k], rf[k])
			}
		}
		for _, k := range []string{"fd", "qbuf-free", "rbs", "tot-mem"} {
			if n, err := strconv.ParseInt(cf[k], 10, 64); err != nil || n <= 0 {
				t.Errorf("CLIENT %s %s=%q, want a positive number", sub, k, cf[k])
			}
		}
	}
}

// TestClientListStates checks the fields that follow a client's state:
// a transaction's queue, subscriptions, tracking, the protocol, a blocked
// command.
func TestClientListStates(t *testing.T) {
	ts := startServer(t)
	watcher := ts.wire(t)
	tests := []struct {
		name  string
		setup [][]string
		want  map[string]string
	}{
		{"idle", nil, map[string]string{"flags": "N", "multi": "-1", "multi-mem": "0", "argv-mem": "0", "redir": "-1", "events": "r", "qbuf": "0"}},
		{"MULTI with two queued", [][]string{{"MULTI"}, {"SET", "k", "v"}, {"INCRBY", "n", "10"}},
			// multi-mem: the queued arguments' bytes and 8 per argument.
			map[string]string{"flags": "x", "multi": "2", "multi-mem": strconv.Itoa(3 + 1 + 1 + 6 + 1 + 2 + 8*6), "cmd": "incrby"}},
		{"MULTI then DISCARD", [][]string{{"MULTI"}, {"SET", "k", "v"}, {"DISCARD"}}, map[string]string{"flags": "N", "multi": "-1", "multi-mem": "0"}},
		{"subscriber", [][]string{{"SUBSCRIBE", "a"}, {"SUBSCRIBE", "b"}, {"PSUBSCRIBE", "x*"}}, map[string]string{"flags": "P", "sub": "2", "psub": "1", "ssub": "0"}},
		{"tracking", [][]string{{"CLIENT", "TRACKING", "ON"}}, map[string]string{"flags": "t", "redir": "0"}},
		{"RESP3 with a library", [][]string{{"HELLO", "3"}, {"CLIENT", "SETINFO", "LIB-NAME", "mylib"}, {"CLIENT", "SETINFO", "LIB-VER", "1.2"}},
			map[string]string{"resp": "3", "lib-name": "mylib", "lib-ver": "1.2"}},
		{"SELECT and a name", [][]string{{"SELECT", "3"}, {"CLIENT", "SETNAME", "worker"}}, map[string]string{"db": "3", "name": "worker"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rc := ts.wire(t)
			id := rc.clientID()
			for _, args := range tt.setup {
				rc.do(args...)
			}
			_, f := clientFields(t, strings.TrimSuffix(textOf(t, 2, watcher.do("CLIENT", "LIST", "ID", id)), "\n"))
			for k, v := range tt.want {
				if f[k] != v {
					t.Errorf("%s=%q, want %q (line %v)", k, f[k], v, f)
				}
			}
		})
	}
}

// TestInfoClientsBlocked: a client blocked with a timeout is in the
// timeout table, and its keys count as blocking keys.
func TestInfoClientsBlocked(t *testing.T) {
	ts := startServer(t)
	rc := ts.wire(t)
	for _, b := range []struct{ args []string }{{[]string{"BLPOP", "q1", "q2", "30"}}, {[]string{"BLPOP", "q2", "0"}}} {
		bc := ts.wire(t)
		bc.write(wireCmd(b.args...))
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		f := infoFields(t, rc, "clients")
		want := map[string]string{"blocked_clients": "2", "clients_in_timeout_table": "1", "total_blocking_keys": "2", "total_blocking_keys_on_nokey": "0"}
		ok := true
		for k, v := range want {
			ok = ok && f[k] == v
		}
		if ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("INFO clients = %v, want %v", f, want)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestInfoNetworkBytes: total_net_input_bytes and total_net_output_bytes
// count exactly the bytes of the requests and replies in between.
func TestInfoNetworkBytes(t *testing.T) {
	ts := startServer(t)
	rc := ts.wire(t)
	tests := []struct{ args []string }{
		{[]string{"PING"}},
		{[]string{"SET", "key", strings.Repeat("v", 1000)}},
		{[]string{"GET", "key"}},
		{[]string{"NOSUCH", "x"}},
	}
	stat := func(f map[string]string, k string) int64 {
		n, err := strconv.ParseInt(f[k], 10, 64)
		if err != nil {
			t.Fatalf("%s = %q", k, f[k])
		}
		return n
	}
	for _, tt := range tests {
		infoReq := wireCmd("INFO", "stats")
		first := rc.do("INFO", "stats")
		f1 := parseInfo(first)
		req := wireCmd(tt.args...)
		reply := rc.do(tt.args...)
		second := rc.do("INFO", "stats")
		f2 := parseInfo(second)
		if in := stat(f2, "total_net_input_bytes") - stat(f1, "total_net_input_bytes"); in != int64(len(req)+len(infoReq)) {
			t.Errorf("%q: input grew by %d, want %d", tt.args, in, len(req)+len(infoReq))
		}
		if out := stat(f2, "total_net_output_bytes") - stat(f1, "total_net_output_bytes"); out != int64(len(first)+len(reply)) {
			t.Errorf("%q: output grew by %d, want %d", tt.args, out, len(first)+len(reply))
		}
	}
}

// parseInfo reads an INFO reply (RESP2 bulk) into its fields.
func parseInfo(reply string) map[string]string {
	_, body, _ := strings.Cut(reply, "\r\n")
	out := map[string]string{}
	for _, l := range strings.Split(body, "\r\n") {
		if k, v, ok := strings.Cut(l, ":"); ok && !strings.HasPrefix(l, "#") {
			out[k] = v
		}
	}
	return out
}

// TestInfoInstantaneousOps: instantaneous_ops_per_sec and the kbps figures
// follow the load over the last 1.6 seconds, as Redis's do, and fall back
// to zero once it stops.
func TestInfoInstantaneousOps(t *testing.T) {
	ts := startServer(t)
	rc := ts.wire(t)
	load := ts.wire(t)
	end := time.Now().Add(1200 * time.Millisecond)
	n := 0
	for time.Now().Before(end) {
		load.do("SET", "k", "v")
		n++
	}
	f := infoFields(t, rc, "stats")
	ops, _ := strconv.ParseInt(f["instantaneous_ops_per_sec"], 10, 64)
	in, _ := strconv.ParseFloat(f["instantaneous_input_kbps"], 64)
	out, _ := strconv.ParseFloat(f["instantaneous_output_kbps"], 64)
	// n commands in 1.2 s, averaged over 1.6 s: at least half the rate.
	if rate := float64(n) / 1.2; float64(ops) < rate/2 || float64(ops) > rate*2 {
		t.Errorf("instantaneous_ops_per_sec = %d after %d commands in 1.2 s", ops, n)
	}
	if in <= 0 || out <= 0 {
		t.Errorf("instantaneous_input_kbps %v, instantaneous_output_kbps %v under load", in, out)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		f = infoFields(t, rc, "stats")
		// INFO itself is a command: allow its own trickle.
		if ops, _ := strconv.ParseInt(f["instantaneous_ops_per_sec"], 10, 64); ops <= 10 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("instantaneous_ops_per_sec still %s with no load", f["instantaneous_ops_per_sec"])
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// TestInfoMemoryPeak: the peak is never below the current figure, grows
// with it, and CONFIG RESETSTAT brings it back to the current figure.
func TestInfoMemoryPeak(t *testing.T) {
	ts := startServer(t)
	rc := ts.wire(t)
	num := func(f map[string]string, k string) uint64 {
		n, err := strconv.ParseUint(f[k], 10, 64)
		if err != nil {
			t.Fatalf("%s = %q", k, f[k])
		}
		return n
	}
	f := infoFields(t, rc, "memory")
	if num(f, "used_memory_peak") < num(f, "used_memory") {
		t.Errorf("used_memory_peak %s below used_memory %s", f["used_memory_peak"], f["used_memory"])
	}
	// A big request held by the server raises the heap, and the peak
	// with it.
	bc := ts.wire(t)
	bc.do("SET", "big", strings.Repeat("x", 20<<20))
	bc.do("DEL", "big")
	f2 := infoFields(t, rc, "memory")
	if num(f2, "used_memory_peak") < num(f, "used_memory")+10<<20 {
		t.Errorf("used_memory_peak %s after a 20 MB request, was %s", f2["used_memory_peak"], f["used_memory"])
	}
	// Once it is gone (the server runs in this process), CONFIG RESETSTAT
	// starts the peak again from the current figure.
	bc.nc.Close()
	var f3 map[string]string
	for deadline := time.Now().Add(5 * time.Second); ; {
		runtime.GC()
		rc.do("CONFIG", "RESETSTAT")
		f3 = infoFields(t, rc, "memory")
		if num(f3, "used_memory_peak") < num(f3, "used_memory") {
			t.Fatalf("after CONFIG RESETSTAT used_memory_peak %s is below used_memory %s", f3["used_memory_peak"], f3["used_memory"])
		}
		if num(f3, "used_memory_peak") <= num(f2, "used_memory_peak")-10<<20 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after CONFIG RESETSTAT used_memory_peak %s; the peak before was %s", f3["used_memory_peak"], f2["used_memory_peak"])
		}
		time.Sleep(50 * time.Millisecond)
	}
	if !strings.HasSuffix(f3["used_memory_peak_perc"], "%") {
		t.Errorf("used_memory_peak_perc = %q", f3["used_memory_peak_perc"])
	}
}

// TestInfoKeyspaceAvgTTL: avg_ttl is the mean time left of the keys with
// a deadline still ahead, in milliseconds; expires counts them all.
func TestInfoKeyspaceAvgTTL(t *testing.T) {
	tests := []struct {
		name    string
		ttls    []int // seconds; 0: no deadline
		wantAvg int64 // ms, checked to within 2 s
		exp     int
	}{
		{"none", []int{0, 0}, 0, 0},
		{"one", []int{100}, 100000, 1},
		{"mixed", []int{100, 200, 0}, 150000, 2},
		{"long", []int{86400, 3600}, (86400 + 3600) * 500, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := startServer(t)
			rc := ts.wire(t)
			for i, ttl := range tt.ttls {
				args := []string{"SET", "k" + strconv.Itoa(i), "v"}
				if ttl > 0 {
					args = append(args, "EX", strconv.Itoa(ttl))
				}
				rc.do(args...)
			}
			f := infoFields(t, rc, "keyspace")
			var keys, exp int
			var avg int64
			if _, err := fmt.Sscanf(f["db0"], "keys=%d,expires=%d,avg_ttl=%d", &keys, &exp, &avg); err != nil {
				t.Fatalf("db0:%s: %v", f["db0"], err)
			}
			if keys != len(tt.ttls) || exp != tt.exp || avg > tt.wantAvg || avg < tt.wantAvg-2000 {
				t.Errorf("db0:%s, want keys=%d,expires=%d,avg_ttl≈%d", f["db0"], len(tt.ttls), tt.exp, tt.wantAvg)
			}
		})
	}
}

// TestInfoChangesSinceSave follows rdb_changes_since_last_save and
// rdb_saves beside real Redis through writes and a SAVE. Cairn counts
// modified keys (Redis counts a hash's or set's elements one by one), so
// the steps write whole keys.
func TestInfoChangesSinceSave(t *testing.T) {
	real := redistest.Start(t)
	ts := startServer(t, "dir", t.TempDir())
	ours := redistest.Dial(t, ts.addr)
	steps := [][]any{
		{"SET", "x", "1"},
		{"MSET", "a", "1", "b", "2"},
		{"DEL", "a", "nosuch"},
		{"GET", "x"},
		{"SAVE"},
		{"SET", "y", "1"},
		{"INCR", "y"},
		{"EXPIRE", "y", "100"},
		{"SAVE"},
	}
	fields := func(c *redistest.Conn) map[string]string {
		v, err := c.Do("INFO", "persistence")
		if err != nil {
			t.Fatal(err)
		}
		_, _, f := infoSectionsOf(t, string(v.([]byte)))
		return f
	}
	for _, step := range steps {
		for _, c := range []*redistest.Conn{real, ours} {
			if _, err := c.Do(step...); err != nil {
				t.Fatalf("%v: %v", step, err)
			}
		}
		r, c := fields(real), fields(ours)
		for _, k := range []string{"rdb_changes_since_last_save", "rdb_saves"} {
			if r[k] != c[k] {
				t.Errorf("after %v: %s = %q, Redis %q", step, k, c[k], r[k])
			}
		}
	}
}

// TestInfoKeyspaceFollowsSwapDB: each database's line describes its own
// keys, after SWAPDB too (the keyspace keeps physical databases apart
// from the numbers clients use).
func TestInfoKeyspaceFollowsSwapDB(t *testing.T) {
	ts := startServer(t)
	rc := ts.wire(t)
	rc.do("SET", "a", "v", "EX", "100")
	rc.do("SELECT", "1")
	rc.do("SET", "b", "v", "EX", "300")
	rc.do("SET", "c", "v")
	check := func(db string, keys, exp int, avg int64) {
		t.Helper()
		var k, e int
		var a int64
		line := infoFields(t, rc, "keyspace")[db]
		if _, err := fmt.Sscanf(line, "keys=%d,expires=%d,avg_ttl=%d", &k, &e, &a); err != nil {
			t.Fatalf("%s:%s: %v", db, line, err)
		}
		if k != keys || e != exp || a > avg || a < avg-2000 {
			t.Errorf("%s:%s, want keys=%d,expires=%d,avg_ttl≈%d", db, line, keys, exp, avg)
		}
	}
	check("db0", 1, 1, 100000)
	check("db1", 2, 1, 300000)
	rc.do("SWAPDB", "0", "1")
	check("db0", 2, 1, 300000)
	check("db1", 1, 1, 100000)
}

// TestInfoRedis72Fields: the fields Redis 7.2 added, which the installed
// Redis 7.0 cannot show for comparison (src/server.c genRedisInfoString and
// src/connection.c getListensInfoString of 7.2).
func TestInfoRedis72Fields(t *testing.T) {
	ts := startServer(t)
	rc := ts.wire(t)
	tests := []struct {
		section string
		field   string
		want    string // "" accepts any value
	}{
		// The configured addresses and port, as Redis shows them (the
		// harness hands the server a listener of its own).
		{"server", "listener0", "name=tcp,bind=127.0.0.1,port=" + infoFields(t, rc, "server")["tcp_port"]},
		{"clients", "total_blocking_keys", "0"},
		{"clients", "total_blocking_keys_on_nokey", "0"},
		{"stats", "acl_access_denied_auth", "0"},
	}
	for _, tt := range tests {
		f := infoFields(t, rc, tt.section)
		v, ok := f[tt.field]
		if !ok || (tt.want != "" && v != tt.want) {
			t.Errorf("INFO %s %s = %q (present %v), want %q", tt.section, tt.field, v, ok, tt.want)
		}
	}
}

// TestInfoEngineSection: INFO engine shows Pebble's figures, and no
// iterator stays open between commands.
func TestInfoEngineSection(t *testing.T) {
	ts := startServer(t)
	rc := ts.wire(t)
	rc.do("HSET", "h", "a", "1", "b", "2")
	rc.do("HGETALL", "h")
	rc.do("SCAN", "0")
	f := infoFields(t, rc, "engine")
	for _, k := range []string{"engine_disk_usage_bytes", "engine_memtable_bytes", "engine_block_cache_bytes", "engine_compactions",
		"engine_flushes", "engine_read_amplification", "engine_wal_bytes", "engine_wal_syncs", "engine_write_stalls", "engine_level0"} {
		if _, ok := f[k]; !ok {
			t.Errorf("INFO engine lacks %s: %v", k, f)
		}
	}
	if f["engine"] != "pebble" || f["engine_failed"] != "0" {
		t.Errorf("INFO engine = %v", f)
	}
	// INFO itself reads the expiry index only for keyspace, not here.
	if f["engine_open_iterators"] != "0" {
		t.Errorf("engine_open_iterators = %q between commands", f["engine_open_iterators"])
	}
}
