package config

import (
	"fmt"
	"math"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestDefault(t *testing.T) {
	if got, want := snap(Default()), defaults(); !reflect.DeepEqual(got, want) {
		t.Errorf("Default():\n got %+v\nwant %+v", got, want)
	}
}

func TestGet(t *testing.T) {
	absDir, err := filepath.Abs("./cairn-data")
	if err != nil {
		t.Fatal(err)
	}
	all := [][2]string{
		{"acl-pubsub-default", "resetchannels"},
		{"aclfile", ""},
		{"acllog-max-len", "128"},
		{"appendfsync", "everysec"},
		{"appendonly", "yes"},
		{"bind", "127.0.0.1"},
		{"busy-reply-threshold", "5000"},
		{"lua-time-limit", "5000"},
		{"cache-size", "1073741824"},
		{"client-output-buffer-limit", "normal 0 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60"},
		{"client-query-buffer-limit", "1073741824"},
		{"databases", "16"},
		{"dbfilename", "dump.rdb"},
		{"dir", absDir},
		{"hash-max-listpack-entries", "512"},
		{"hash-max-ziplist-entries", "512"},
		{"hash-max-listpack-value", "64"},
		{"hash-max-ziplist-value", "64"},
		{"hll-sparse-max-bytes", "3000"},
		{"hz", "10"},
		{"key-cache-size", "67108864"},
		{"latency-monitor-threshold", "0"},
		{"latency-tracking", "yes"},
		{"latency-tracking-info-percentiles", "50 99 99.9"},
		{"logfile", ""},
		{"loglevel", "notice"},
		{"masterauth", ""},
		{"masteruser", ""},
		{"maxclients", "10000"},
		{"member-filter-size", "33554432"},
		{"metrics-addr", ""},
		{"notify-keyspace-events", ""},
		{"pidfile", ""},
		{"port", "6379"},
		{"pprof-addr", ""},
		{"procs", "0"},
		{"protected-mode", "yes"},
		{"proto-max-bulk-len", "536870912"},
		{"quiet-monitor", "no"},
		{"replica-read-only", "yes"},
		{"slave-read-only", "yes"},
		{"replicaof", ""},
		{"slaveof", ""},
		{"requirepass", ""},
		{"save", ""},
		{"script-memory-limit", "536870912"},
		{"set-max-intset-entries", "512"},
		{"set-max-listpack-entries", "128"},
		{"set-max-listpack-value", "64"},
		{"slowlog-log-slower-than", "10000"},
		{"slowlog-max-len", "128"},
		{"stream-node-max-bytes", "4096"},
		{"stream-node-max-entries", "100"},
		{"tcp-keepalive", "300"},
		{"timeout", "0"},
		{"tls-auth-clients", "yes"},
		{"tls-ca-cert-dir", ""},
		{"tls-ca-cert-file", ""},
		{"tls-cert-file", ""},
		{"tls-ciphers", ""},
		{"tls-ciphersuites", ""},
		{"tls-key-file", ""},
		{"tls-key-file-pass", ""},
		{"tls-port", "0"},
		{"tls-prefer-server-ciphers", "no"},
		{"tls-protocols", ""},
		{"tracking-table-max-keys", "1000000"},
		{"zset-max-listpack-entries", "128"},
		{"zset-max-ziplist-entries", "128"},
		{"zset-max-listpack-value", "64"},
		{"zset-max-ziplist-value", "64"},
	}
	tests := []struct {
		patterns []string
		want     [][2]string
	}{
		{[]string{"*"}, all},
		{[]string{"port"}, [][2]string{{"port", "6379"}}},
		// An exact name is answered under the name as written.
		{[]string{"PORT"}, [][2]string{{"PORT", "6379"}}},
		{[]string{"PORT", "port"}, [][2]string{{"PORT", "6379"}}},
		// A pattern is answered under the setting's own name.
		{[]string{"PO*"}, [][2]string{{"port", "6379"}}},
		{[]string{"p*"}, [][2]string{{"pidfile", ""}, {"port", "6379"}, {"pprof-addr", ""}, {"procs", "0"}, {"protected-mode", "yes"}, {"proto-max-bulk-len", "536870912"}}},
		{[]string{"port", "p*"}, [][2]string{{"port", "6379"}, {"pidfile", ""}, {"pprof-addr", ""}, {"procs", "0"}, {"protected-mode", "yes"}, {"proto-max-bulk-len", "536870912"}}},
		{[]string{"[mp][ar][xo][ct][lo]*"}, [][2]string{{"maxclients", "10000"}, {"proto-max-bulk-len", "536870912"}}},
		{[]string{"[bh][iz]*"}, [][2]string{{"bind", "127.0.0.1"}, {"hz", "10"}}},
		// A setting with an alias answers to both names, each once.
		{[]string{"hash-max-*-entries"}, [][2]string{{"hash-max-listpack-entries", "512"}, {"hash-max-ziplist-entries", "512"}}},
		{[]string{"ZSET-MAX-ZIPLIST-VALUE"}, [][2]string{{"ZSET-MAX-ZIPLIST-VALUE", "64"}}},
		{[]string{"zset-max-ziplist-value", "zset-max-*-value"}, [][2]string{{"zset-max-ziplist-value", "64"}, {"zset-max-listpack-value", "64"}}},
		{[]string{"?z"}, [][2]string{{"hz", "10"}}},
		{[]string{"timeout", "tcp-keepalive", "timeout"}, [][2]string{{"timeout", "0"}, {"tcp-keepalive", "300"}}},
		{[]string{"nosuch"}, nil},
		{[]string{"nosuch*"}, nil},
		{[]string{"maxmemory"}, [][2]string{{"maxmemory", "0"}}},
		{[]string{"rdbcompression", "save"}, [][2]string{{"rdbcompression", "yes"}, {"save", ""}}},
		// Glob characters count up to the first NUL, and a glob ends
		// there, but an exact name is whole; only ASCII letters fold.
		{[]string{"maxclients\x00*"}, nil},
		{[]string{"HZ\x00"}, nil},
		{[]string{"maxclients*\x00x"}, [][2]string{{"maxclients", "10000"}}},
		{[]string{"*\x00port"}, all},
		{[]string{"\u212Aey-cache-size"}, nil},
		{[]string{"\u212Aey-cache-*"}, nil},
		{nil, nil},
	}
	c := Default()
	for _, tt := range tests {
		// The ignored settings (ignored.go) have their own test.
		var got [][2]string
		for _, kv := range c.Get(tt.patterns...) {
			if s := lookup(kv[0]); s == nil || slices.Contains(applied, s) || slices.Contains(tt.patterns, kv[0]) {
				got = append(got, kv)
			}
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Get(%q) =\n %q\nwant %q", tt.patterns, got, tt.want)
		}
	}
}

func TestGetFormatsValues(t *testing.T) {
	c := Default()
	if err := c.ApplyArgs([]string{"--bind", "10.0.0.1", "-::1", "--dir", "/srv/cairn", "--cache-size", "2gb",
		"--loglevel", "WARNING", "--proto-max-bulk-len", "2m"}); err != nil {
		t.Fatal(err)
	}
	want := [][2]string{
		{"bind", "10.0.0.1 -::1"},
		{"dir", "/srv/cairn"},
		{"cache-size", "2147483648"},
		{"loglevel", "warning"},
		{"proto-max-bulk-len", "2000000"},
	}
	if got := c.Get("bind", "dir", "cache-size", "loglevel", "proto-max-bulk-len"); !reflect.DeepEqual(got, want) {
		t.Errorf("Get = %q; want %q", got, want)
	}
}

func TestSet(t *testing.T) {
	tests := []struct {
		name   string
		pairs  [][2]string
		err    string
		change func(*snapshot)
	}{
		{name: "one", pairs: [][2]string{{"timeout", "30"}},
			change: func(s *snapshot) { s.Timeout = 30 * time.Second }},
		{name: "several", pairs: [][2]string{{"appendfsync", "always"}, {"maxclients", "5"}, {"requirepass", "pw"}},
			change: func(s *snapshot) { s.AppendFsync = "always"; s.MaxClients = 5; s.RequirePass = "pw" }},
		{name: "name and enum case", pairs: [][2]string{{"AppendFsync", "NO"}, {"LOGLEVEL", "Debug"}},
			change: func(s *snapshot) { s.AppendFsync = "no"; s.LogLevel = "debug" }},
		{name: "memory units", pairs: [][2]string{{"proto-max-bulk-len", "1gb"}},
			change: func(s *snapshot) { s.ProtoMaxBulkLen = 1 << 30 }},
		{name: "hz clamped", pairs: [][2]string{{"hz", "1000"}},
			change: func(s *snapshot) { s.Hz = 500 }},
		{name: "hz zero", pairs: [][2]string{{"hz", "0"}},
			change: func(s *snapshot) { s.Hz = 1 }},
		{name: "tcp-keepalive", pairs: [][2]string{{"tcp-keepalive", "60"}},
			change: func(s *snapshot) { s.TCPKeepAlive = time.Minute }},
		{name: "immutable even when unchanged", pairs: [][2]string{{"databases", "16"}},
			err: "ERR CONFIG SET failed (possibly related to argument 'databases') - can't set immutable config"},
		{name: "empty", pairs: nil, change: func(*snapshot) {}},

		{name: "unknown", pairs: [][2]string{{"foo", "bar"}},
			err: "ERR Unknown option or number of arguments for CONFIG SET - 'foo'"},
		{name: "redis setting cairn lacks", pairs: [][2]string{{"cluster-config-file", "x"}},
			err: "ERR CONFIG SET failed (possibly related to argument 'cluster-config-file') - can't set immutable config"},
		{name: "ignored setting", pairs: [][2]string{{"maxmemory", "1gb"}, {"rdbcompression", "no"}},
			change: func(*snapshot) {}},
		// Names are looked up whole but quoted up to the NUL.
		{name: "unknown with NUL", pairs: [][2]string{{"timeout\x00", "1"}},
			err: "ERR Unknown option or number of arguments for CONFIG SET - 'timeout'"},
		{name: "unknown empty", pairs: [][2]string{{"", "1"}},
			err: "ERR Unknown option or number of arguments for CONFIG SET - ''"},
		{name: "unknown empty after NUL", pairs: [][2]string{{"hz", "5"}, {"\x00hz", "1"}},
			err: "ERR Unknown option or number of arguments for CONFIG SET - ''"},
		{name: "unknown before bad value", pairs: [][2]string{{"timeout", "x"}, {"foo", "1"}},
			err: "ERR Unknown option or number of arguments for CONFIG SET - 'foo'"},
		{name: "first unknown wins", pairs: [][2]string{{"foo", "1"}, {"port", "1"}, {"bar", "1"}},
			err: "ERR Unknown option or number of arguments for CONFIG SET - 'foo'"},
		{name: "immutable before unknown", pairs: [][2]string{{"databases", "1"}, {"foo", "1"}},
			err: "ERR CONFIG SET failed (possibly related to argument 'databases') - can't set immutable config"},
		{name: "immutable before bad value", pairs: [][2]string{{"timeout", "x"}, {"DATABASES", "1"}},
			err: "ERR CONFIG SET failed (possibly related to argument 'DATABASES') - can't set immutable config"},
		{name: "immutable names", pairs: [][2]string{{"tls-port", "7000"}},
			err: "ERR CONFIG SET failed (possibly related to argument 'tls-port') - can't set immutable config"},
		{name: "protected dir", pairs: [][2]string{{"dir", "/tmp"}},
			err: "ERR CONFIG SET failed (possibly related to argument 'dir') - can't set protected config"},
		{name: "immutable cache-size", pairs: [][2]string{{"cache-size", "1"}},
			err: "ERR CONFIG SET failed (possibly related to argument 'cache-size') - can't set immutable config"},
		{name: "immutable logfile", pairs: [][2]string{{"logfile", ""}},
			err: "ERR CONFIG SET failed (possibly related to argument 'logfile') - can't set immutable config"},
		{name: "immutable pidfile", pairs: [][2]string{{"pidfile", ""}},
			err: "ERR CONFIG SET failed (possibly related to argument 'pidfile') - can't set immutable config"},
		{name: "duplicate", pairs: [][2]string{{"timeout", "1"}, {"TIMEOUT", "2"}},
			err: "ERR CONFIG SET failed (possibly related to argument 'TIMEOUT') - duplicate parameter"},
		{name: "alias twice", pairs: [][2]string{{"zset-max-ziplist-entries", "1"}, {"ZSET-MAX-ZIPLIST-ENTRIES", "2"}},
			err: "ERR CONFIG SET failed (possibly related to argument 'ZSET-MAX-ZIPLIST-ENTRIES') - duplicate parameter"},
		{name: "limit below 0", pairs: [][2]string{{"set-max-intset-entries", "-1"}},
			err: "ERR CONFIG SET failed (possibly related to argument 'set-max-intset-entries') - argument must be between 0 and 9223372036854775807 inclusive"},
		{name: "limit not a memory value", pairs: [][2]string{{"hash-max-ziplist-value", "-1"}},
			err: "ERR CONFIG SET failed (possibly related to argument 'hash-max-listpack-value') - argument must be a memory value"},
		{name: "bad value names the setting", pairs: [][2]string{{"TIMEOUT", "x"}},
			err: "ERR CONFIG SET failed (possibly related to argument 'timeout') - argument couldn't be parsed into an integer"},
		{name: "enum", pairs: [][2]string{{"appendfsync", "foo"}},
			err: "ERR CONFIG SET failed (possibly related to argument 'appendfsync') - argument(s) must be one of the following: everysec, always, no"},
		{name: "loglevel", pairs: [][2]string{{"loglevel", ""}},
			err: "ERR CONFIG SET failed (possibly related to argument 'loglevel') - argument(s) must be one of the following: debug, verbose, notice, warning, nothing"},
		{name: "bounds", pairs: [][2]string{{"timeout", "-1"}},
			err: "ERR CONFIG SET failed (possibly related to argument 'timeout') - argument must be between 0 and 2147483647 inclusive"},
		{name: "maxclients", pairs: [][2]string{{"maxclients", "0"}},
			err: "ERR CONFIG SET failed (possibly related to argument 'maxclients') - argument must be between 1 and 4294967295 inclusive"},
		{name: "bulk floor", pairs: [][2]string{{"proto-max-bulk-len", "100"}},
			err: "ERR CONFIG SET failed (possibly related to argument 'proto-max-bulk-len') - argument must be between 1048576 and 9223372036854775807 inclusive"},
		{name: "bulk past int64", pairs: [][2]string{{"proto-max-bulk-len", "9223372036854775808"}},
			err: "ERR CONFIG SET failed (possibly related to argument 'proto-max-bulk-len') - argument must be between 1048576 and 9223372036854775807 inclusive"},
		{name: "bulk not memory", pairs: [][2]string{{"proto-max-bulk-len", "1x"}},
			err: "ERR CONFIG SET failed (possibly related to argument 'proto-max-bulk-len') - argument must be a memory value"},
		{name: "integer is strict", pairs: [][2]string{{"timeout", "05"}},
			err: "ERR CONFIG SET failed (possibly related to argument 'timeout') - argument couldn't be parsed into an integer"},
		{name: "integer takes no unit", pairs: [][2]string{{"timeout", "1k"}},
			err: "ERR CONFIG SET failed (possibly related to argument 'timeout') - argument couldn't be parsed into an integer"},
		// All or nothing: the good pair before the bad one is not applied.
		{name: "all or nothing", pairs: [][2]string{{"timeout", "5"}, {"maxclients", "x"}, {"hz", "20"}},
			err: "ERR CONFIG SET failed (possibly related to argument 'maxclients') - argument couldn't be parsed into an integer"},
		{name: "bool", pairs: [][2]string{{"latency-tracking", "NO"}},
			change: func(s *snapshot) { s.LatencyTracking = false }},
		{name: "bool refused", pairs: [][2]string{{"latency-tracking", "maybe"}},
			err: "ERR CONFIG SET failed (possibly related to argument 'latency-tracking') - argument must be 'yes' or 'no'"},
		{name: "percentiles", pairs: [][2]string{{"latency-tracking-info-percentiles", "50.50 1e1 -0 0.0000001 33.333333 100"}},
			change: func(s *snapshot) {
				s.LatencyPercentile = []float64{50.5, 10, math.Copysign(0, -1), 1e-7, 33.333333, 100}
			}},
		{name: "no percentiles", pairs: [][2]string{{"latency-tracking-info-percentiles", ""}},
			change: func(s *snapshot) { s.LatencyPercentile = []float64{} }},
		{name: "percentile out of range", pairs: [][2]string{{"latency-tracking-info-percentiles", "50 101"}},
			err: "ERR CONFIG SET failed (possibly related to argument 'latency-tracking-info-percentiles') - latency-tracking-info-percentiles parameters should sit between [0.0,100.0]"},
		{name: "percentile infinite", pairs: [][2]string{{"latency-tracking-info-percentiles", "inf"}},
			err: "ERR CONFIG SET failed (possibly related to argument 'latency-tracking-info-percentiles') - latency-tracking-info-percentiles parameters should sit between [0.0,100.0]"},
		{name: "percentile not a number", pairs: [][2]string{{"latency-tracking-info-percentiles", "nan"}},
			err: "ERR CONFIG SET failed (possibly related to argument 'latency-tracking-info-percentiles') - Invalid latency-tracking-info-percentiles parameters"},
		// Split on single spaces, so a doubled space is an empty word.
		{name: "percentiles with doubled space", pairs: [][2]string{{"latency-tracking-info-percentiles", "5  7"}},
			err: "ERR CONFIG SET failed (possibly related to argument 'latency-tracking-info-percentiles') - Invalid latency-tracking-info-percentiles parameters"},
		{name: "first bad value wins", pairs: [][2]string{{"hz", "x"}, {"timeout", "-1"}},
			err: "ERR CONFIG SET failed (possibly related to argument 'hz') - argument couldn't be parsed into an integer"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := Default()
			err := c.Set(tt.pairs)
			want := defaults()
			if tt.err != "" {
				if err == nil || err.Error() != tt.err {
					t.Fatalf("Set(%q) = %v; want %q", tt.pairs, err, tt.err)
				}
			} else {
				if err != nil {
					t.Fatalf("Set(%q) = %v", tt.pairs, err)
				}
				tt.change(&want)
			}
			if got := snap(c); !reflect.DeepEqual(got, want) {
				t.Errorf("after Set:\n got %+v\nwant %+v", got, want)
			}
		})
	}
}

// A setting and its alias may be set together, as in Redis: the later
// value stays, under both names.
func TestSetAlias(t *testing.T) {
	c := Default()
	if err := c.Set([][2]string{{"hash-max-ziplist-entries", "5"}, {"hash-max-listpack-entries", "6"}, {"zset-max-ziplist-value", "1k"}}); err != nil {
		t.Fatal(err)
	}
	want := [][2]string{{"hash-max-listpack-entries", "6"}, {"hash-max-ziplist-entries", "6"}, {"zset-max-listpack-value", "1000"}}
	if got := c.Get("hash-max-*-entries", "zset-max-listpack-value"); !reflect.DeepEqual(got, want) {
		t.Errorf("Get = %q; want %q", got, want)
	}
	if got := c.EncodingLimits(); got.HashEntries != 6 || got.ZSetValue != 1000 || got.SetIntsetEntries != 512 {
		t.Errorf("EncodingLimits = %+v", got)
	}
}

func TestSetThenGet(t *testing.T) {
	c := Default()
	if err := c.Set([][2]string{{"proto-max-bulk-len", "1g"}, {"requirepass", "a b"}, {"hz", "600"},
		{"latency-tracking", "No"}, {"latency-tracking-info-percentiles", "50.50 1e1 -0 0.0000001 33.333333"}}); err != nil {
		t.Fatal(err)
	}
	// Percentiles show as C's "%f" with the trailing zeros trimmed.
	want := [][2]string{{"proto-max-bulk-len", "1000000000"}, {"requirepass", "a b"}, {"hz", "500"},
		{"latency-tracking", "no"}, {"latency-tracking-info-percentiles", "50.5 10 -0 0 33.333333"}}
	if got := c.Get("proto-max-bulk-len", "requirepass", "hz", "latency-tracking", "latency-tracking-info-percentiles"); !reflect.DeepEqual(got, want) {
		t.Errorf("Get = %q; want %q", got, want)
	}
}

func TestOnChange(t *testing.T) {
	c := Default()
	var calls []string
	record := func(name string) func(string) {
		return func(v string) { calls = append(calls, name+"="+v) }
	}
	c.OnChange("appendfsync", record("appendfsync"))
	c.OnChange("APPENDFSYNC", record("appendfsync#2"))
	c.OnChange("hz", record("hz"))
	c.OnChange("timeout", record("timeout"))
	c.OnChange("requirepass", func(v string) {
		// A callback sees the new values of the whole Set.
		calls = append(calls, "requirepass="+v+" (timeout "+c.Timeout().String()+")")
	})

	steps := []struct {
		pairs [][2]string
		want  []string
	}{
		{[][2]string{{"appendfsync", "ALWAYS"}},
			[]string{"appendfsync=always", "appendfsync#2=always"}},
		// No change, no call.
		{[][2]string{{"appendfsync", "always"}}, nil},
		// Calls follow the order of the pairs; settings without callbacks
		// are skipped.
		{[][2]string{{"hz", "2000"}, {"maxclients", "7"}, {"requirepass", "pw"}, {"timeout", "3"}},
			[]string{"hz=500", "requirepass=pw (timeout 3s)", "timeout=3"}},
		// Clamped to the value it already has: no change.
		{[][2]string{{"hz", "501"}}, nil},
		// A failed Set calls nothing.
		{[][2]string{{"appendfsync", "no"}, {"timeout", "x"}}, nil},
	}
	for i, st := range steps {
		calls = nil
		_ = c.Set(st.pairs)
		if !reflect.DeepEqual(calls, st.want) {
			t.Errorf("step %d: Set(%q) calls = %q; want %q", i, st.pairs, calls, st.want)
		}
	}
}

func TestOnChangeNoCallbackOnLoad(t *testing.T) {
	c := Default()
	called := false
	c.OnChange("timeout", func(string) { called = true })
	if err := c.ApplyArgs([]string{"--timeout", "5"}); err != nil {
		t.Fatal(err)
	}
	if called {
		t.Error("ApplyArgs ran an OnChange callback")
	}
}

func TestOnChangePanics(t *testing.T) {
	for _, name := range []string{"databases", "nosuch"} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("OnChange(%q) did not panic", name)
				}
			}()
			Default().OnChange(name, func(string) {})
		}()
	}
}

// TestConcurrentSetGet runs CONFIG SET, CONFIG GET and the getters at once
// (meaningful under -race). Every Set gives timeout and tcp-keepalive the
// same value, so a Get that saw half of a Set would show them differ.
func TestConcurrentSetGet(t *testing.T) {
	c := Default()
	var fired sync.Map
	c.OnChange("timeout", func(v string) { fired.Store(v, true) })
	if err := c.Set([][2]string{{"timeout", "0"}, {"tcp-keepalive", "0"}, {"requirepass", "0"}}); err != nil {
		t.Fatal(err)
	}
	const writers, readers, rounds = 4, 4, 300
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range rounds {
				v := strconv.Itoa(w*rounds + i)
				if err := c.Set([][2]string{{"timeout", v}, {"tcp-keepalive", v}, {"requirepass", v}}); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	for range readers {
		wg.Go(func() {
			for range rounds {
				got := c.Get("timeout", "tcp-keepalive", "requirepass")
				if len(got) != 3 {
					t.Errorf("Get returned %d pairs", len(got))
					return
				}
				if got[0][1] != got[1][1] || got[1][1] != got[2][1] {
					t.Errorf("Get saw half a Set: %q", got)
					return
				}
				_ = c.Timeout()
				_ = c.RequirePass()
				_ = c.ProtoMaxBulkLen()
				_ = c.AppendFsync()
				_ = c.MaxClients()
			}
		})
	}
	wg.Wait()
	n := 0
	fired.Range(func(any, any) bool { n++; return true })
	// Values are distinct per Set; only the writers' "0" is no change.
	if n < writers*rounds-1 {
		t.Errorf("timeout callback saw %d values; want at least %d", n, writers*rounds-1)
	}
}

// The typed getters are read on hot paths: they must not allocate.
func TestGettersDoNotAllocate(t *testing.T) {
	c := Default()
	allocs := testing.AllocsPerRun(100, func() {
		_ = c.Port()
		_ = c.Dir()
		_ = c.Databases()
		_ = c.RequirePass()
		_ = c.AppendFsync()
		_ = c.MaxClients()
		_ = c.Timeout()
		_ = c.ProtoMaxBulkLen()
		_ = c.LogLevel()
		_ = c.LogFile()
		_ = c.CacheSize()
		_ = c.TCPKeepAlive()
		_ = c.Hz()
		_ = c.PidFile()
	})
	if allocs != 0 {
		t.Errorf("getters allocate %v times", allocs)
	}
}

func ExampleConfig_Set() {
	c := Default()
	c.OnChange("appendfsync", func(v string) { fmt.Println("sync mode now", v) })
	fmt.Println(c.Set([][2]string{{"appendfsync", "always"}, {"timeout", "60"}}))
	fmt.Println(c.Set([][2]string{{"appendfsync", "sometimes"}}))
	fmt.Println(c.Get("appendfsync", "time*"))
	// Output:
	// sync mode now always
	// <nil>
	// ERR CONFIG SET failed (possibly related to argument 'appendfsync') - argument(s) must be one of the following: everysec, always, no
	// [[appendfsync always] [timeout 60]]
}

func TestCheckVetsSet(t *testing.T) {
	c := Default()
	var seen []string
	c.Check("maxclients", func(v string) string {
		seen = append(seen, v)
		if v == "5000" {
			return "The operating system is not able to handle the specified number of clients, try with 968"
		}
		return ""
	})
	err := c.Set([][2]string{{"hz", "20"}, {"maxclients", "5000"}})
	want := "ERR CONFIG SET failed (possibly related to argument 'maxclients') - The operating system is not able to handle the specified number of clients, try with 968"
	if err == nil || err.Error() != want {
		t.Fatalf("Set = %v, want %q", err, want)
	}
	if c.MaxClients() != 10000 || c.Hz() != 10 {
		t.Fatalf("a refused CONFIG SET changed maxclients to %d, hz to %d", c.MaxClients(), c.Hz())
	}
	if err := c.Set([][2]string{{"maxclients", "0x"}}); err == nil {
		t.Fatal("a value that does not parse was accepted")
	}
	if err := c.Set([][2]string{{"MAXCLIENTS", "900"}}); err != nil || c.MaxClients() != 900 {
		t.Fatalf("Set 900 = %v, maxclients %d", err, c.MaxClients())
	}
	if !slices.Equal(seen, []string{"5000", "900"}) {
		t.Fatalf("the check saw %q, want the parsed values only", seen)
	}
}

func TestClientQueryBufferLimit(t *testing.T) {
	c := Default()
	if c.ClientQueryBufferLimit() != 1<<30 {
		t.Fatalf("default %d, want 1gb", c.ClientQueryBufferLimit())
	}
	if err := c.Set([][2]string{{"client-query-buffer-limit", "64mb"}}); err != nil || c.ClientQueryBufferLimit() != 64<<20 {
		t.Fatalf("Set 64mb = %v, limit %d", err, c.ClientQueryBufferLimit())
	}
	err := c.Set([][2]string{{"client-query-buffer-limit", "1000"}})
	want := "ERR CONFIG SET failed (possibly related to argument 'client-query-buffer-limit') - argument must be between 1048576 and 9223372036854775807 inclusive"
	if err == nil || err.Error() != want {
		t.Fatalf("Set 1000 = %v, want %q", err, want)
	}
}

func TestHelpCoversEverySetting(t *testing.T) {
	h := Help()
	if len(h) != len(settings) {
		t.Fatalf("Help has %d entries, the table %d", len(h), len(settings))
	}
	for _, e := range h {
		if e.Meaning == "" {
			t.Errorf("setting %s has no meaning for --help", e.Name)
		}
	}
	for name := range meanings {
		if lookup(name) == nil {
			t.Errorf("meanings has %q, which is no setting", name)
		}
	}
}

func TestTLSSettings(t *testing.T) {
	c := Default()
	if got := c.TLS(); got.AuthClients != TLSAuthYes || got.Port != 0 || !c.ProtectedMode() {
		t.Fatalf("defaults: %+v protected=%v", got, c.ProtectedMode())
	}
	err := c.ApplyArgs([]string{"--tls-port", "6380", "--tls-cert-file", "c.pem", "--tls-key-file", "k.pem",
		"--tls-auth-clients", "optional", "--tls-protocols", "TLSv1.2 TLSv1.3", "--tls-prefer-server-ciphers", "yes", "--protected-mode", "no"})
	if err != nil {
		t.Fatal(err)
	}
	got := c.TLS()
	if got.Port != 6380 || got.CertFile != "c.pem" || got.KeyFile != "k.pem" || got.AuthClients != TLSAuthOptional ||
		got.Protocols != "TLSv1.2 TLSv1.3" || !got.PreferServerCiphers || c.ProtectedMode() {
		t.Fatalf("after args: %+v protected=%v", got, c.ProtectedMode())
	}
	if err := c.ApplyArgs([]string{"--tls-auth-clients", "maybe"}); err == nil || !strings.Contains(err.Error(), "no, yes, optional") {
		t.Fatalf("bad tls-auth-clients: %v", err)
	}
}

func TestCheckTLS(t *testing.T) {
	c := Default()
	var seen []TLS
	c.CheckTLS(func(t TLS) string {
		seen = append(seen, t)
		if t.CertFile == "bad.pem" {
			return "Unable to update TLS configuration. Check server logs."
		}
		return ""
	})
	if err := c.Set([][2]string{{"timeout", "5"}}); err != nil || len(seen) != 0 {
		t.Fatalf("a non-TLS set: err %v, check ran %d times", err, len(seen))
	}
	if err := c.Set([][2]string{{"tls-cert-file", "new.pem"}, {"tls-key-file", "new.key"}}); err != nil {
		t.Fatal(err)
	}
	if len(seen) != 1 || seen[0].CertFile != "new.pem" || seen[0].KeyFile != "new.key" || seen[0].AuthClients != TLSAuthYes {
		t.Fatalf("the check saw %+v", seen)
	}
	err := c.Set([][2]string{{"tls-auth-clients", "no"}, {"tls-cert-file", "bad.pem"}})
	want := "ERR CONFIG SET failed (possibly related to argument 'tls-auth-clients') - Unable to update TLS configuration. Check server logs."
	if err == nil || err.Error() != want {
		t.Fatalf("refused set: %v, want %q", err, want)
	}
	if got := c.TLS(); got.CertFile != "new.pem" || got.AuthClients != TLSAuthYes {
		t.Fatalf("a refused CONFIG SET changed the settings: %+v", got)
	}
	if err := c.Set([][2]string{{"tls-port", "7000"}}); err == nil {
		t.Fatal("tls-port changed at run time")
	}
}

// replicaof takes a host and a port, under either name.
func TestReplicaOfSetting(t *testing.T) {
	c := Default()
	if err := c.ApplyArgs([]string{"--slaveof", "10.0.0.1", "6380", "--masterauth", "pw", "--replica-read-only", "no"}); err != nil {
		t.Fatal(err)
	}
	if got := c.ReplicaOf(); len(got) != 2 || got[0] != "10.0.0.1" || got[1] != "6380" || c.MasterAuth() != "pw" || c.ReplicaReadOnly() {
		t.Errorf("replicaof %q masterauth %q read-only %v", got, c.MasterAuth(), c.ReplicaReadOnly())
	}
	if err := c.ApplyArgs([]string{"--replicaof", "127.0.0.1 6379"}); err != nil || len(c.ReplicaOf()) != 2 {
		t.Errorf("replicaof as one word: %v %q", err, c.ReplicaOf())
	}
	for _, bad := range [][]string{{"--replicaof", "host"}, {"--replicaof", "host", "70000"}, {"--replicaof", "a", "1", "2"}} {
		if err := Default().ApplyArgs(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// TestExtraGetters checks the getters of settings kept in Config.extra.
func TestExtraGetters(t *testing.T) {
	c := Default()
	if c.MaxMemory() != 0 || c.MaxMemoryPolicy() != "noeviction" || c.UnixSocket() != "" || c.UnixSocketPerm() != 0 || c.SupervisedSystemd("/run/x") {
		t.Fatalf("defaults: %d %s %q %o %v", c.MaxMemory(), c.MaxMemoryPolicy(), c.UnixSocket(), c.UnixSocketPerm(), c.SupervisedSystemd("/run/x"))
	}
	if err := c.ApplyArgs([]string{"--maxmemory", "2gb", "--maxmemory-policy", "allkeys-lru", "--unixsocket", "/tmp/c.sock", "--unixsocketperm", "770", "--supervised", "auto"}); err != nil {
		t.Fatal(err)
	}
	if c.MaxMemory() != 2<<30 || c.MaxMemoryPolicy() != "allkeys-lru" || c.UnixSocket() != "/tmp/c.sock" || c.UnixSocketPerm() != 0o770 {
		t.Errorf("set: %d %s %q %o", c.MaxMemory(), c.MaxMemoryPolicy(), c.UnixSocket(), c.UnixSocketPerm())
	}
	if !c.SupervisedSystemd("/run/x") || c.SupervisedSystemd("") {
		t.Error("supervised auto follows NOTIFY_SOCKET")
	}
	if got := c.Ignored(); !slices.Equal(got, []string{"maxmemory", "maxmemory-policy"}) {
		t.Errorf("Ignored() = %q", got)
	}
}

// TestSettingsTable checks the table itself: names unique (an alias
// included), sorted, every setting with a meaning for --help, and every
// ignored one with its reason.
func TestSettingsTable(t *testing.T) {
	seen := map[string]bool{}
	for i, s := range settings {
		for _, n := range []string{s.name, s.alias} {
			if n == "" {
				continue
			}
			if seen[n] {
				t.Errorf("%s is defined twice", n)
			}
			seen[n] = true
		}
		if i > 0 && settings[i-1].name >= s.name {
			t.Errorf("%s is out of order", s.name)
		}
		if s.kind == kindEnum && int(s.def.n) >= len(s.enum) {
			t.Errorf("%s: default out of its enum", s.name)
		}
	}
	for _, h := range Help() {
		if h.Meaning == "" {
			t.Errorf("%s has no meaning", h.Name)
		}
	}
}

// TestProtectedConfigs checks that dir and dbfilename are "protected" while
// enable-protected-configs is no, as in Redis, and immutable otherwise,
// since Cairn cannot change them live at all.
func TestProtectedConfigs(t *testing.T) {
	for _, tt := range []struct{ enable, want string }{
		{"no", "can't set protected config"},
		{"yes", "can't set immutable config"},
		{"local", "can't set immutable config"},
	} {
		c := Default()
		if err := c.ApplyArgs([]string{"--enable-protected-configs", tt.enable}); err != nil {
			t.Fatal(err)
		}
		err := c.Set([][2]string{{"dbfilename", "x.rdb"}})
		if want := "ERR CONFIG SET failed (possibly related to argument 'dbfilename') - " + tt.want; err == nil || err.Error() != want {
			t.Errorf("enable-protected-configs %s: %v, want %q", tt.enable, err, want)
		}
	}
}

// An apply function that fails refuses the CONFIG SET with its reason and
// restores every setting of it, applying the old values again, as Redis
// does when it cannot listen on a new port.
func TestOnApplyRollsBack(t *testing.T) {
	c := Default()
	var applied []string
	c.OnApply("port", func() string {
		applied = append(applied, "port "+strconv.Itoa(c.Port()))
		if c.Port() == 1 {
			return "Unable to listen on this port. Check server logs."
		}
		return ""
	})
	c.OnApply("bind", func() string {
		applied = append(applied, "bind "+strings.Join(c.Bind(), " "))
		return ""
	})
	changed := 0
	c.OnChange("port", func(string) { changed++ })
	err := c.Set([][2]string{{"bind", "::1"}, {"port", "1"}})
	want := "ERR CONFIG SET failed (possibly related to argument 'port') - Unable to listen on this port. Check server logs."
	if err == nil || err.Error() != want {
		t.Fatalf("Set: %v, want %q", err, want)
	}
	if got := strings.Join(applied, ", "); got != "bind ::1, port 1, bind 127.0.0.1, port 6379" {
		t.Errorf("applied: %s", got)
	}
	if c.Port() != 6379 || strings.Join(c.Bind(), " ") != "127.0.0.1" || changed != 0 {
		t.Errorf("after the failure: port %d, bind %v, %d OnChange calls", c.Port(), c.Bind(), changed)
	}
	applied = nil
	if err := c.Set([][2]string{{"port", "7000"}}); err != nil || c.Port() != 7000 || changed != 1 {
		t.Errorf("Set port 7000: %v, port %d, %d OnChange calls", err, c.Port(), changed)
	}
}
