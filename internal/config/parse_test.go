package config

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestSplitArgs(t *testing.T) {
	tests := []struct {
		line string
		want []string
		ok   bool
	}{
		{"", nil, true},
		{"   \t ", nil, true},
		{"port 6379", []string{"port", "6379"}, true},
		{"  port\t\t6379  ", []string{"port", "6379"}, true},
		{`bind "127.0.0.1" '::1'`, []string{"bind", "127.0.0.1", "::1"}, true},
		{`requirepass ""`, []string{"requirepass", ""}, true},
		{`requirepass ''`, []string{"requirepass", ""}, true},
		{`a "x\ny"`, []string{"a", "x\ny"}, true},
		{`a "\n\r\t\b\a\"\\\q"`, []string{"a", "\n\r\t\b\a\"\\q"}, true},
		{`a "\x41\x4a\xFF\x00z"`, []string{"a", "AJ\xff\x00z"}, true},
		{`a "\x4"`, []string{"a", "x4"}, true}, // not two hex digits: a plain escape
		{`a 'it\'s'`, []string{"a", "it's"}, true},
		{`a 'no\nescape'`, []string{"a", `no\nescape`}, true},
		{`a ab"cd"`, []string{"a", "abcd"}, true}, // a quote may open mid-word
		{`a ab'cd' e`, []string{"a", "abcd", "e"}, true},
		{"a \"x\"\ty", []string{"a", "x", "y"}, true},
		{"a \"x\"\vy", []string{"a", "x", "y"}, true}, // isspace after a quote
		{"a\vb", []string{"a\vb"}, true},              // but \v does not end a word
		{"\va", []string{"a"}, true},                  // and is skipped between words
		{"a\x00b c", []string{"a"}, true},             // NUL ends the C string
		{`a "x`, nil, false},
		{`a 'x`, nil, false},
		{`a "x"y`, nil, false},
		{`a 'x'y`, nil, false},
		{`a "x\"`, nil, false},
		{`"`, nil, false},
		{`a "x\`, nil, false},
	}
	for _, tt := range tests {
		got, ok := splitArgs(tt.line)
		if ok != tt.ok || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("splitArgs(%q) = %q, %v; want %q, %v", tt.line, got, ok, tt.want, tt.ok)
		}
	}
}

func TestAppendReprRoundTrip(t *testing.T) {
	for _, s := range []string{"", "plain", "with space", `q"uo'te\`, "\n\r\t\a\b", "\x00\x01\x7f\xff", "--port"} {
		var b strings.Builder
		appendRepr(&b, s)
		got, ok := splitArgs(b.String())
		if !ok || len(got) != 1 || got[0] != s {
			t.Errorf("splitArgs(appendRepr(%q)) = %q, %v", s, got, ok)
		}
	}
}

func TestParseInt(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"0", 0, true},
		{"7", 7, true},
		{"-7", -7, true},
		{"9223372036854775807", math.MaxInt64, true},
		{"-9223372036854775808", math.MinInt64, true},
		{"9223372036854775808", 0, false},
		{"-9223372036854775809", 0, false},
		{"18446744073709551616", 0, false},
		{"", 0, false},
		{"-", 0, false},
		{"-0", 0, false},
		{"00", 0, false},
		{"05", 0, false},
		{"+5", 0, false},
		{" 5", 0, false},
		{"5 ", 0, false},
		{"5x", 0, false},
		{"1k", 0, false},
		{"1.5", 0, false},
		{"000000000000000000001", 0, false},
	}
	for _, tt := range tests {
		got, ok := parseInt(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("parseInt(%q) = %d, %v; want %d, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestParseMemory(t *testing.T) {
	tests := []struct {
		in   string
		want uint64
		ok   bool
	}{
		{"0", 0, true},
		{"100", 100, true},
		{"100b", 100, true},
		{"100B", 100, true},
		{"1k", 1000, true},
		{"1K", 1000, true},
		{"1kb", 1024, true},
		{"1KB", 1024, true},
		{"1kB", 1024, true},
		{"1m", 1000000, true},
		{"1mb", 1 << 20, true},
		{"1g", 1000000000, true},
		{"1gb", 1 << 30, true},
		{"512mb", 512 << 20, true},
		{"007", 7, true},
		// memtoull quirks: no digits reads as 0; a number too big for
		// strtoull saturates.
		{"", 0, true},
		{"kb", 0, true},
		{"99999999999999999999", math.MaxUint64, true},
		{"18446744073709551615", math.MaxUint64, true},
		{"1\x00junk", 1, true},
		{"-1", 0, false},
		{"+1", 0, false},
		{" 1k", 0, false},
		{"1 k", 0, false},
		{"1kk", 0, false},
		{"1t", 0, false},
		{"1.5g", 0, false},
		{"1x", 0, false},
		{"17179869184gb", 0, false}, // overflows
		{"18446744073709551615k", 0, false},
		{strings.Repeat("1", 127), math.MaxUint64, true},
		{strings.Repeat("0", 127) + "1", 0, false}, // 128 digits
	}
	for _, tt := range tests {
		got, ok := parseMemory(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("parseMemory(%q) = %d, %v; want %d, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

// snapshot is every typed getter's value, to compare whole configurations.
type snapshot struct {
	Bind              []string
	Port              int
	Dir               string
	Databases         int
	RequirePass       string
	AppendFsync       string
	MaxClients        int
	Timeout           time.Duration
	ProtoMaxBulkLen   int64
	LogLevel, LogFile string
	CacheSize         int64
	TCPKeepAlive      time.Duration
	Hz                int
	PidFile           string
	LatencyTracking   bool
	LatencyPercentile []float64
}

func snap(c *Config) snapshot {
	return snapshot{
		Bind: c.Bind(), Port: c.Port(), Dir: c.Dir(), Databases: c.Databases(),
		RequirePass: c.RequirePass(), AppendFsync: c.AppendFsync(), MaxClients: c.MaxClients(),
		Timeout: c.Timeout(), ProtoMaxBulkLen: c.ProtoMaxBulkLen(), LogLevel: c.LogLevel(),
		LogFile: c.LogFile(), CacheSize: c.CacheSize(), TCPKeepAlive: c.TCPKeepAlive(),
		Hz: c.Hz(), PidFile: c.PidFile(),
		LatencyTracking: c.LatencyTracking(), LatencyPercentile: c.LatencyPercentiles(),
	}
}

func defaults() snapshot {
	return snapshot{
		Bind: []string{"127.0.0.1"}, Port: 6379, Dir: "./cairn-data", Databases: 16,
		AppendFsync: "everysec", MaxClients: 10000, ProtoMaxBulkLen: 512 << 20,
		LogLevel: "notice", CacheSize: 1 << 30, TCPKeepAlive: 300 * time.Second, Hz: 10,
		LatencyTracking: true, LatencyPercentile: []float64{50, 99, 99.9},
	}
}

func TestLoadFile(t *testing.T) {
	tests := []struct {
		name    string
		content string
		change  func(*snapshot) // applied to the defaults; nil when an error is expected
		errLine int
		errText string
		reason  string
	}{
		{name: "empty", content: "", change: func(*snapshot) {}},
		{name: "comments and blanks", content: "# a comment\n\n   \n\t# indented\r\n",
			change: func(*snapshot) {}},
		{
			name: "every setting",
			content: `bind 10.0.0.1 -::1 *
port 7000
dir /var/lib/cairn
databases 65536
requirepass "s3cr\"et"
appendfsync always
maxclients 4294967295
timeout 30
proto-max-bulk-len 1gb
loglevel warning
logfile '/var/log/cairn.log'
cache-size 256MB
tcp-keepalive 0
hz 100
pidfile /run/cairn.pid
`,
			change: func(s *snapshot) {
				s.Bind = []string{"10.0.0.1", "-::1", "*"}
				s.Port = 7000
				s.Dir = "/var/lib/cairn"
				s.Databases = 65536
				s.RequirePass = `s3cr"et`
				s.AppendFsync = "always"
				s.MaxClients = math.MaxUint32
				s.Timeout = 30 * time.Second
				s.ProtoMaxBulkLen = 1 << 30
				s.LogLevel = "warning"
				s.LogFile = "/var/log/cairn.log"
				s.CacheSize = 256 << 20
				s.TCPKeepAlive = 0
				s.Hz = 100
				s.PidFile = "/run/cairn.pid"
			},
		},
		{name: "names ignore case", content: "PORT 7001\nAppendFsync NO\nLOGLEVEL Nothing\n",
			change: func(s *snapshot) { s.Port = 7001; s.AppendFsync = "no"; s.LogLevel = "nothing" }},
		{name: "later lines win", content: "port 1\nport 2\n",
			change: func(s *snapshot) { s.Port = 2 }},
		{name: "CRLF and spacing", content: "  port   7002  \r\n",
			change: func(s *snapshot) { s.Port = 7002 }},
		{name: "no final newline", content: "port 7003",
			change: func(s *snapshot) { s.Port = 7003 }},
		{name: "empty bind", content: `bind ""`,
			change: func(s *snapshot) { s.Bind = nil }},
		{name: "bare bind", content: "bind",
			change: func(s *snapshot) { s.Bind = nil }},
		{name: "sixteen binds", content: "bind" + strings.Repeat(" a", 16),
			change: func(s *snapshot) { s.Bind = strings.Fields(strings.Repeat(" a", 16)) }},
		{name: "hz clamped high", content: "hz 1000",
			change: func(s *snapshot) { s.Hz = 500 }},
		{name: "hz clamped low", content: "hz 0",
			change: func(s *snapshot) { s.Hz = 1 }},
		{name: "empty password", content: "requirepass \"\"",
			change: func(*snapshot) {}},
		{name: "memory units", content: "proto-max-bulk-len 2m\ncache-size 0",
			change: func(s *snapshot) { s.ProtoMaxBulkLen = 2000000; s.CacheSize = 0 }},

		{name: "unknown directive", content: "port 7000\nfoo bar\n",
			errLine: 2, errText: "foo bar", reason: "Bad directive or wrong number of arguments"},
		{name: "redis directives cairn ignores", content: "maxmemory-policy allkeys-lru\nsave 900 1\nsave \"60 100\"\nappendonly no\ndaemonize yes\n",
			change: func(*snapshot) {}},
		{name: "cluster-enabled yes", content: "cluster-enabled no\ncluster-enabled yes",
			errLine: 2, errText: "cluster-enabled yes", reason: "cluster mode is not supported by Cairn"},
		{name: "unixsocketperm not octal", content: "unixsocketperm 789",
			errLine: 1, errText: "unixsocketperm 789", reason: "argument couldn't be parsed as an octal number"},
		{name: "min-replicas-to-write", content: "min-replicas-to-write 0\nmin-slaves-to-write 1",
			errLine: 2, errText: "min-slaves-to-write 1", reason: "min-replicas-to-write needs replicas, and Cairn does not serve replicas yet"},
		{name: "loadmodule", content: "loadmodule /x.so a",
			errLine: 1, errText: "loadmodule /x.so a", reason: "modules are not supported by Cairn"},
		{name: "bad save", content: "save 900",
			errLine: 1, errText: "save 900", reason: "Invalid save parameters"},
		{name: "rename-command arity", content: "rename-command get",
			errLine: 1, errText: "rename-command get", reason: "Bad directive or wrong number of arguments"},
		{name: "include", content: "include /nonexistent/other.conf",
			errLine: 1, errText: "include /nonexistent/other.conf", reason: "can't open config file '/nonexistent/other.conf': open /nonexistent/other.conf: no such file or directory"},
		{name: "missing value", content: "\nport\n",
			errLine: 2, errText: "port", reason: "wrong number of arguments"},
		{name: "extra value", content: "port 1 2",
			errLine: 1, errText: "port 1 2", reason: "wrong number of arguments"},
		{name: "trailing comment is words", content: "port 1 # the port",
			errLine: 1, errText: "port 1 # the port", reason: "wrong number of arguments"},
		{name: "unbalanced double", content: `port "abc`,
			errLine: 1, errText: `port "abc`, reason: "Unbalanced quotes in configuration line"},
		{name: "unbalanced single", content: `port 'abc`,
			errLine: 1, errText: `port 'abc`, reason: "Unbalanced quotes in configuration line"},
		{name: "text after quote", content: `port "70"9`,
			errLine: 1, errText: `port "70"9`, reason: "Unbalanced quotes in configuration line"},
		{name: "not an integer", content: "PORT abc",
			errLine: 1, errText: "PORT abc", reason: "argument couldn't be parsed into an integer"},
		{name: "port range", content: "port 65536",
			errLine: 1, errText: "port 65536", reason: "argument must be between 0 and 65535 inclusive"},
		{name: "databases range", content: "databases 0",
			errLine: 1, errText: "databases 0", reason: "argument must be between 1 and 65536 inclusive"},
		{name: "databases too many", content: "databases 65537",
			errLine: 1, errText: "databases 65537", reason: "argument must be between 1 and 65536 inclusive"},
		{name: "bulk len floor", content: "proto-max-bulk-len 1000000",
			errLine: 1, errText: "proto-max-bulk-len 1000000",
			reason: "argument must be between 1048576 and 9223372036854775807 inclusive"},
		{name: "bulk len not memory", content: "proto-max-bulk-len 1x",
			errLine: 1, errText: "proto-max-bulk-len 1x", reason: "argument must be a memory value"},
		{name: "memory past int64", content: "cache-size 8589934592gb",
			errLine: 1, errText: "cache-size 8589934592gb",
			reason: "argument must be between 0 and 9223372036854775807 inclusive"},
		{name: "enum", content: "appendfsync maybe",
			errLine: 1, errText: "appendfsync maybe",
			reason: "argument(s) must be one of the following: everysec, always, no"},
		{name: "loglevel", content: "loglevel loud",
			errLine: 1, errText: "loglevel loud",
			reason: "argument(s) must be one of the following: debug, verbose, notice, warning, nothing"},
		{name: "timeout negative", content: "timeout -1",
			errLine: 1, errText: "timeout -1", reason: "argument must be between 0 and 2147483647 inclusive"},
		{name: "maxclients zero", content: "maxclients 0",
			errLine: 1, errText: "maxclients 0", reason: "argument must be between 1 and 4294967295 inclusive"},
		{name: "hz negative", content: "hz -1",
			errLine: 1, errText: "hz -1", reason: "argument must be between 0 and 2147483647 inclusive"},
		{name: "too many binds", content: "bind" + strings.Repeat(" a", 17),
			errLine: 1, errText: "bind" + strings.Repeat(" a", 17), reason: "Too many bind addresses specified."},
		{name: "empty dir", content: `dir ""`,
			errLine: 1, errText: `dir ""`, reason: "dir can't be empty"},
		{name: "bad line after good ones", content: "port 1\ntimeout 5\nhz x\n",
			errLine: 3, errText: "hz x", reason: "argument couldn't be parsed into an integer"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "cairn.conf")
			if err := os.WriteFile(path, []byte(tt.content), 0o600); err != nil {
				t.Fatal(err)
			}
			c := Default()
			err := c.LoadFile(path)
			want := defaults()
			if tt.change != nil {
				if err != nil {
					t.Fatalf("LoadFile: %v", err)
				}
				tt.change(&want)
			} else {
				var le *LoadError
				if !errors.As(err, &le) {
					t.Fatalf("LoadFile error = %v; want a *LoadError", err)
				}
				wantErr := LoadError{Source: path, Line: tt.errLine, Text: tt.errText, Reason: tt.reason}
				if *le != wantErr {
					t.Fatalf("LoadFile error = %+v; want %+v", *le, wantErr)
				}
			}
			// A failed load changes nothing.
			if got := snap(c); !reflect.DeepEqual(got, want) {
				t.Errorf("after LoadFile:\n got %+v\nwant %+v", got, want)
			}
		})
	}
}

func TestLoadErrorText(t *testing.T) {
	e := &LoadError{Source: "cairn.conf", Line: 12, Text: "foo bar", Reason: "Bad directive or wrong number of arguments"}
	if got, want := e.Error(), "cairn.conf:12: 'foo bar': Bad directive or wrong number of arguments"; got != want {
		t.Errorf("Error() = %q; want %q", got, want)
	}
	e = &LoadError{Source: "command line", Text: `port "x"`, Reason: "argument couldn't be parsed into an integer"}
	if got, want := e.Error(), `command line: 'port "x"': argument couldn't be parsed into an integer`; got != want {
		t.Errorf("Error() = %q; want %q", got, want)
	}
}

func TestLoadFileMissing(t *testing.T) {
	c := Default()
	err := c.LoadFile(filepath.Join(t.TempDir(), "nope.conf"))
	if !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("LoadFile of a missing file = %v; want an os.ErrNotExist", err)
	}
}

func TestApplyArgs(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		change  func(*snapshot)
		errText string
		reason  string
	}{
		{name: "none", args: nil, change: func(*snapshot) {}},
		{name: "pairs", args: []string{"--port", "7000", "--appendfsync", "always"},
			change: func(s *snapshot) { s.Port = 7000; s.AppendFsync = "always" }},
		{name: "several words", args: []string{"--bind", "127.0.0.1", "::1", "--port", "7000"},
			change: func(s *snapshot) { s.Bind = []string{"127.0.0.1", "::1"}; s.Port = 7000 }},
		{name: "name and value in one word", args: []string{"--port 7000", "--hz", "20"},
			change: func(s *snapshot) { s.Port = 7000; s.Hz = 20 }},
		{name: "value needing quotes", args: []string{"--requirepass", `a "b" c\d`},
			change: func(s *snapshot) { s.RequirePass = `a "b" c\d` }},
		{name: "value with newline", args: []string{"--requirepass", "a\nport 1"},
			change: func(s *snapshot) { s.RequirePass = "a\nport 1" }},
		{name: "empty value", args: []string{"--requirepass", ""},
			change: func(*snapshot) {}},
		// Redis takes the word after a bare name as its value even if it
		// starts with "--".
		{name: "dashes as a value", args: []string{"--requirepass", "--port", "--hz", "20"},
			change: func(s *snapshot) { s.RequirePass = "--port"; s.Hz = 20 }},
		{name: "bind swallows a dashed word", args: []string{"--bind", "--port", "7000"},
			change: func(s *snapshot) { s.Bind = []string{"--port", "7000"} }},
		{name: "name case", args: []string{"--PORT", "7000"},
			change: func(s *snapshot) { s.Port = 7000 }},
		{name: "a commented option is skipped", args: []string{"--#port", "1"},
			change: func(*snapshot) {}},

		{name: "unknown", args: []string{"--foo", "1"},
			errText: `foo "1"`, reason: "Bad directive or wrong number of arguments"},
		{name: "bad value", args: []string{"--port", "abc"},
			errText: `port "abc"`, reason: "argument couldn't be parsed into an integer"},
		{name: "missing value", args: []string{"--port"},
			errText: "port", reason: "wrong number of arguments"},
		{name: "two values", args: []string{"--port", "1", "2"},
			errText: `port "1" "2"`, reason: "wrong number of arguments"},
		{name: "leading value", args: []string{"7000", "--port", "1"},
			errText: `"7000"`, reason: "Bad directive or wrong number of arguments"},
		{name: "later error undoes earlier options", args: []string{"--port", "7000", "--loglevel", "x"},
			errText: `loglevel "x"`,
			reason:  "argument(s) must be one of the following: debug, verbose, notice, warning, nothing"},
		{name: "unbalanced quote in a name", args: []string{`--port "7000`},
			errText: `port "7000`, reason: "Unbalanced quotes in configuration line"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := Default()
			err := c.ApplyArgs(tt.args)
			want := defaults()
			if tt.change != nil {
				if err != nil {
					t.Fatalf("ApplyArgs: %v", err)
				}
				tt.change(&want)
			} else {
				var le *LoadError
				if !errors.As(err, &le) {
					t.Fatalf("ApplyArgs error = %v; want a *LoadError", err)
				}
				wantErr := LoadError{Source: "command line", Text: tt.errText, Reason: tt.reason}
				if *le != wantErr {
					t.Fatalf("ApplyArgs error = %+v; want %+v", *le, wantErr)
				}
			}
			if got := snap(c); !reflect.DeepEqual(got, want) {
				t.Errorf("after ApplyArgs:\n got %+v\nwant %+v", got, want)
			}
		})
	}
}

// The command line is applied after the file and overrides it.
func TestArgsOverrideFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cairn.conf")
	if err := os.WriteFile(path, []byte("port 7000\ntimeout 9\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c := Default()
	if err := c.LoadFile(path); err != nil {
		t.Fatal(err)
	}
	if err := c.ApplyArgs([]string{"--port", "7001"}); err != nil {
		t.Fatal(err)
	}
	if c.Port() != 7001 || c.Timeout() != 9*time.Second {
		t.Errorf("port %d, timeout %v; want 7001, 9s", c.Port(), c.Timeout())
	}
}

// TestStockRedisConf loads the redis.conf files Redis and Debian ship: every
// directive in them is either applied or accepted and reported as ignored.
func TestStockRedisConf(t *testing.T) {
	tests := []struct {
		file string
		// Some of what each file sets, as CONFIG GET shows it.
		want    [][2]string
		ignored []string // a sample of what must be reported
	}{
		{file: "debian-7.0.conf",
			want: [][2]string{{"bind", "127.0.0.1 -::1"}, {"port", "6379"}, {"daemonize", "yes"},
				{"logfile", "/var/log/redis/redis-server.log"}, {"appendonly", "no"}, {"save", ""},
				{"oom-score-adj-values", "0 200 800"}, {"list-max-listpack-size", "-2"}},
			ignored: []string{"appendonly", "daemonize", "rdbcompression", "lazyfree-lazy-eviction", "jemalloc-bg-thread"}},
		{file: "redis-7.2.conf",
			want:    [][2]string{{"bind", "127.0.0.1 -::1"}, {"dir", "."}, {"locale-collate", ""}, {"appendonly", "no"}},
			ignored: []string{"appendonly", "activerehashing", "aof-use-rdb-preamble", "rdbchecksum"}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			c := Default()
			if err := c.LoadFile(filepath.Join("testdata", "redisconf", tt.file)); err != nil {
				t.Fatal(err)
			}
			for _, kv := range tt.want {
				got := c.Get(kv[0])
				want := kv[1]
				if kv[0] == "dir" {
					want, _ = filepath.Abs(want)
				}
				if len(got) != 1 || got[0][1] != want {
					t.Errorf("CONFIG GET %s = %q, want %q", kv[0], got, want)
				}
			}
			ignored := c.Ignored()
			for _, name := range tt.ignored {
				if !slices.Contains(ignored, name) {
					t.Errorf("Ignored() = %q, lacks %s", ignored, name)
				}
			}
			// What Cairn applies is never reported, nor what it does anyway.
			for _, name := range []string{"port", "bind", "save", "maxmemory"} {
				if slices.Contains(ignored, name) {
					t.Errorf("Ignored() = %q, has %s", ignored, name)
				}
			}
		})
	}
}

// TestInclude follows include directives as Redis does: a file's directives
// take effect where it is included, a glob includes every match in name
// order (none is no error), a missing file is an error, and a file that
// includes itself is refused rather than followed for ever.
func TestInclude(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("conf.d/10-a.conf", "timeout 10\nport 7001\n")
	write("conf.d/20-b.conf", "port 7002\n")
	base := write("base.conf", "port 7000\ntimeout 5\n")
	self := filepath.Join(dir, "self.conf")
	write("self.conf", "include "+self+"\n")
	bad := write("bad.conf", "port 1\nnosuch 1\n")
	// A chain of 20 files, each including the next.
	for i := 20; i > 0; i-- {
		write("chain"+strconv.Itoa(i)+".conf", "include "+filepath.Join(dir, "chain"+strconv.Itoa(i+1)+".conf")+"\n")
	}
	write("chain21.conf", "port 7300\n")
	chain := filepath.Join(dir, "chain1.conf")
	tests := []struct {
		name, text string
		port       int
		timeout    time.Duration
		err        string // a part of the error
	}{
		{name: "later lines win", text: "include " + base + "\nport 7100\n", port: 7100, timeout: 5 * time.Second},
		{name: "included lines win", text: "port 7100\ninclude " + base + "\n", port: 7000, timeout: 5 * time.Second},
		{name: "glob in name order", text: "include " + filepath.Join(dir, "conf.d", "*.conf") + "\n", port: 7002, timeout: 10 * time.Second},
		{name: "glob matching nothing", text: "port 7200\ninclude " + filepath.Join(dir, "none", "*.conf") + "\n", port: 7200},
		{name: "missing file", text: "include " + filepath.Join(dir, "missing.conf"), err: "can't open config file"},
		{name: "error inside", text: "include " + bad, err: "bad.conf:2: 'nosuch 1': Bad directive or wrong number of arguments"},
		{name: "itself", text: "include " + self, err: "include cycle: '" + self + "' includes itself"},
		{name: "the main file", text: "include " + filepath.Join(dir, "main.conf"), err: "includes itself"},
		{name: "deep", text: "include " + chain, err: "include nested too deep"},
		{name: "diamond", text: "include " + base + "\ninclude " + base + "\n", port: 7000, timeout: 5 * time.Second},
		{name: "two words", text: "include a b", err: "Bad directive or wrong number of arguments"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			main := write("main.conf", tt.text)
			c := Default()
			err := c.LoadFile(main)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("LoadFile error = %v, want one with %q", err, tt.err)
				}
				if c.Port() != 6379 {
					t.Errorf("a failed load changed port to %d", c.Port())
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.Port() != tt.port || c.Timeout() != tt.timeout {
				t.Errorf("port %d timeout %v, want %d %v", c.Port(), c.Timeout(), tt.port, tt.timeout)
			}
		})
	}
}

// TestAccumulatedSave checks Redis's rules for save lines: the first line
// of a file replaces the schedule, later lines add to it, and save ""
// clears it; CONFIG SET replaces it whole.
func TestAccumulatedSave(t *testing.T) {
	tests := []struct{ text, want string }{
		{"save 900 1\nsave 300 10\n", "900 1 300 10"},
		{"save \"900 1 300 10\"\nsave 60 10000\n", "900 1 300 10 60 10000"},
		{"save 900 1\nsave \"\"\nsave 60 5\n", "60 5"},
		{"save 900 1\nsave \"\"\n", ""},
		{"save 0900 +1\n", "900 1"},
	}
	for _, tt := range tests {
		c := Default()
		if err := c.load(tt.text, "test", true); err != nil {
			t.Fatalf("%q: %v", tt.text, err)
		}
		if got := c.Get("save")[0][1]; got != tt.want {
			t.Errorf("%q: save = %q, want %q", tt.text, got, tt.want)
		}
	}
	c := Default()
	if err := c.load("save 900 1\n", "test", true); err != nil {
		t.Fatal(err)
	}
	if err := c.Set([][2]string{{"save", "60 1"}}); err != nil {
		t.Fatal(err)
	}
	if got := c.Get("save")[0][1]; got != "60 1" {
		t.Errorf("after CONFIG SET save = %q, want 60 1", got)
	}
	if got := c.Ignored(); !slices.Equal(got, []string{"save"}) {
		t.Errorf("Ignored() = %q, want [save]", got)
	}
}

// TestRenamesAndObsolete checks that rename-command lines are kept in order
// with their place, and that obsolete directives are reported as ignored.
func TestRenamesAndObsolete(t *testing.T) {
	c := Default()
	if err := c.load("rename-command CONFIG \"\"\n\nrename-command get fetch\nlist-max-ziplist-entries 512\nlua-replicate-commands yes\n", "x.conf", true); err != nil {
		t.Fatal(err)
	}
	want := []Rename{{"CONFIG", "", "x.conf:1: 'rename-command CONFIG \"\"'"}, {"get", "fetch", "x.conf:3: 'rename-command get fetch'"}}
	if got := c.Renames(); !reflect.DeepEqual(got, want) {
		t.Errorf("Renames() = %q, want %q", got, want)
	}
	if got := c.Ignored(); !slices.Equal(got, []string{"list-max-ziplist-entries", "lua-replicate-commands"}) {
		t.Errorf("Ignored() = %q", got)
	}
	if err := c.load("list-max-ziplist-entries 1 2\n", "x.conf", true); err == nil {
		t.Error("an obsolete directive with two values was accepted")
	}
}

// TestExampleConf loads the annotated example contrib/cairn.conf: it must
// load, every value its comments call the default must be the default, and
// it must set only what it says it does.
func TestExampleConf(t *testing.T) {
	c := Default()
	if err := c.LoadFile(filepath.Join("..", "..", "contrib", "cairn.conf")); err != nil {
		t.Fatal(err)
	}
	if got := c.Ignored(); len(got) != 0 {
		t.Errorf("the example sets settings Cairn ignores: %q", got)
	}
	def := Default()
	var changed []string
	for i, kv := range c.Get("*") {
		if d := def.Get("*")[i]; d != kv {
			changed = append(changed, kv[0]+"="+kv[1])
		}
	}
	// Only what the example says differs from the defaults.
	if want := []string{"bind=127.0.0.1 -::1", "dir=/var/lib/cairn"}; !reflect.DeepEqual(changed, want) {
		t.Errorf("the example changes %q, want %q", changed, want)
	}
}

func TestUserLines(t *testing.T) {
	c := Default()
	path := filepath.Join(t.TempDir(), "c.conf")
	text := "user alice on >pw ~* +@all\nport 7000\nUSER bob \"(~a +get)\" off\n"
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := c.LoadFile(path); err != nil {
		t.Fatal(err)
	}
	if err := c.ApplyArgs([]string{"--user", "carol", "on"}); err != nil {
		t.Fatal(err)
	}
	got := c.Users()
	want := [][]string{{"alice", "on", ">pw", "~*", "+@all"}, {"bob", "(~a +get)", "off"}, {"carol", "on"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Users() = %q, want %q", got, want)
	}
	got[0][0] = "changed"
	if c.Users()[0][0] != "alice" {
		t.Error("Users returns the configuration's own slices")
	}
	var le *LoadError
	if err := Default().ApplyArgs([]string{"--user"}); !errors.As(err, &le) || le.Reason != "Bad directive or wrong number of arguments" {
		t.Errorf("a user line without a name: %v", err)
	}
}
