package config

import (
	"strings"
	"testing"

	"github.com/cairndb/cairn/internal/redistest"
)

// TestIgnoredMatchRedis compares the settings Cairn accepts without
// applying them with a real redis-server: their defaults as CONFIG GET
// shows them, and CONFIG SET's verdict and error on good and bad values.
func TestIgnoredMatchRedis(t *testing.T) {
	r := redistest.Start(t)
	reply, err := r.Do("CONFIG", "GET", "*")
	if err != nil {
		t.Fatal(err)
	}
	pairs, _ := reply.([]any)
	redis := map[string]string{}
	for i := 0; i+1 < len(pairs); i += 2 {
		redis[str(pairs[i])] = str(pairs[i+1])
	}
	c := Default()
	compared := 0
	for _, s := range ignoredSettings {
		for _, name := range []string{s.name, s.alias} {
			want, ok := redis[name]
			if name == "" || !ok {
				continue // a 7.2 setting the installed Redis lacks
			}
			compared++
			if got := c.Get(name); len(got) != 1 || got[0][1] != want {
				t.Errorf("CONFIG GET %s = %q; Redis says %q", name, got, want)
			}
		}
	}
	if compared < 100 {
		t.Errorf("compared only %d settings with Redis", compared)
	}
	for _, pair := range [][2]string{
		{"maxmemory-samples", "0"}, {"maxmemory-samples", "7"}, {"maxmemory", "1gb"}, {"maxmemory", "-1"},
		{"maxmemory-policy", "allkeys-lfu"}, {"maxmemory-policy", "lru"}, {"activedefrag", "maybe"},
		{"list-max-ziplist-size", "-3"}, {"oom-score-adj-values", "0 200"}, {"oom-score-adj-values", "0 200 3000"},
		{"oom-score-adj-values", "1 2 3"}, {"shutdown-on-sigterm", "save nosave"}, {"shutdown-on-sigterm", "now force"},
		{"maxmemory-clients", "10%"}, {"maxmemory-clients", "101%"}, {"io-threads", "4"}, {"repl-backlog-size", "0"},
		{"maxmemory-clients", "-1%"}, {"maxmemory-clients", "5mb"}, {"maxmemory-clients", "%"},
		{"save", "100"}, {"save", "0 1"}, {"save", "100 -1"}, {"save", "3600 1 300 100"}, {"appendonly", "maybe"},
	} {
		_, rerr := r.Do("CONFIG", "SET", pair[0], pair[1])
		cerr := c.Set([][2]string{pair})
		switch {
		case (rerr == nil) != (cerr == nil):
			t.Errorf("CONFIG SET %s %q: Cairn %v, Redis %v", pair[0], pair[1], cerr, rerr)
		case rerr != nil && strings.TrimPrefix(rerr.Error(), "redis error reply: ") != cerr.Error():
			t.Errorf("CONFIG SET %s %q:\nCairn %v\nRedis %v", pair[0], pair[1], cerr, rerr)
		case rerr == nil:
			got := c.Get(pair[0])
			want, _ := r.Do("CONFIG", "GET", pair[0])
			w, _ := want.([]any)
			if len(got) != 1 || len(w) != 2 || got[0][1] != str(w[1]) {
				t.Errorf("after CONFIG SET %s %q: Cairn %q, Redis %q", pair[0], pair[1], got, w)
			}
		}
	}
}

func str(v any) string {
	switch v := v.(type) {
	case []byte:
		return string(v)
	case string:
		return v
	}
	return ""
}
