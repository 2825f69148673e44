package config

import (
	"reflect"
	"strings"
	"testing"
)

// FuzzLoad feeds arbitrary configuration text to the file parser. It must
// never panic; text it accepts must survive a round trip through CONFIG
// GET's values, and text it refuses must leave the configuration alone.
func FuzzLoad(f *testing.F) {
	for _, seed := range []string{
		"",
		"# comment\n\nport 7000\n",
		"bind 127.0.0.1 -::1 *\r\nappendfsync always\r\n",
		"latency-tracking-info-percentiles 50.50 1e1 -0 100\nlatency-tracking No\n",
		"latency-tracking-info-percentiles \"\"\n",
		`requirepass "a\x00b\"c\\" ` + "\n",
		"requirepass 'it\\'s'\n",
		"proto-max-bulk-len 1gb\ncache-size 0\nhz 99999\n",
		"timeout 30\ntcp-keepalive 0\nmaxclients 1\nloglevel NOTHING\n",
		"dir /var/lib/cairn\nlogfile \"\"\npidfile /run/x.pid\ndatabases 65536\n",
		"port \"70\"9\n",
		"port 'abc\n",
		"foo bar\n",
		"include x.conf\n",
		"bind" + strings.Repeat(" a", 17),
		"port 1\x00junk\nport 2\n",
		"\x00",
		"cache-size 99999999999999999999\n",
		"client-output-buffer-limit pubsub 32mb 8mb 60\nclient-output-buffer-limit \"replica 1k 2kb 3\"\n",
		"client-output-buffer-limit normal 0 0 0 pubsub 1 2 99999999999\n",
		"client-output-buffer-limit master 1 2 3\n",
		"save 900 1\nsave 300 10\nsave \"\"\nsave \"60 10000\"\n",
		"appendonly no\nmaxmemory 2gb\nmaxmemory-policy allkeys-lru\nlist-max-ziplist-entries 512\n",
		"rename-command CONFIG \"\"\nrename-command get fetch\n",
		"oom-score-adj-values 0 200 800\nshutdown-on-sigterm save now\nunixsocketperm 700\nmaxmemory-clients 10%\n",
		"cluster-enabled yes\nreplicaof 1.2.3.4 6379\n",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, text string) {
		c := Default()
		before := c.Get("*")
		// parseText reads no included file, so the fuzzer cannot reach
		// the file system.
		ds, err := parseText(text, "fuzz", true)
		if err != nil {
			if _, ok := err.(*LoadError); !ok {
				t.Fatalf("error %T is not a *LoadError", err)
			}
			if after := c.Get("*"); !reflect.DeepEqual(before, after) {
				t.Fatalf("a refused load changed the configuration:\n%q\n%q", before, after)
			}
			return
		}
		c.apply(ds)
		got := c.Get("*")
		var b strings.Builder
		for _, kv := range got {
			b.WriteString(kv[0])
			if s := lookup(kv[0]); s.kind == kindList {
				// A list's words may hold spaces themselves (bind); Redis's
				// space-joined form cannot be split back.
				for _, w := range s.load(c).list {
					b.WriteByte(' ')
					appendRepr(&b, w)
				}
			} else {
				b.WriteByte(' ')
				appendRepr(&b, kv[1])
			}
			b.WriteByte('\n')
		}
		c2 := Default()
		ds2, err := parseText(b.String(), "round trip", true)
		if err != nil {
			t.Fatalf("reloading CONFIG GET's values failed: %v\n%s", err, b.String())
		}
		c2.apply(ds2)
		if again := c2.Get("*"); !reflect.DeepEqual(got, again) {
			t.Fatalf("round trip changed values:\n%q\n%q", got, again)
		}
	})
}

// FuzzSplitArgs checks that splitArgs never panics and reads back whatever
// appendRepr quoted.
func FuzzSplitArgs(f *testing.F) {
	for _, seed := range []string{"", "a b", `"x\x41"`, `'a\'b'`, "a\"b\"", "\x00", "--port 7000"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		splitArgs(s)
		var b strings.Builder
		appendRepr(&b, s)
		got, ok := splitArgs(b.String())
		if !ok || len(got) != 1 || got[0] != s {
			t.Fatalf("splitArgs(appendRepr(%q)) = %q, %v", s, got, ok)
		}
	})
}
