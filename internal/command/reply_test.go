package command

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// recorder is a ReplyWriter that notes each call as a RESP3 type byte plus
// its payload: "*10", "%3", "~2", ":1", "$get", "+fast", "_".
type recorder struct{ tokens []string }

func (r *recorder) Array(n int)           { r.add("*" + strconv.Itoa(n)) }
func (r *recorder) Map(n int)             { r.add("%" + strconv.Itoa(n)) }
func (r *recorder) Set(n int)             { r.add("~" + strconv.Itoa(n)) }
func (r *recorder) Int(n int64)           { r.add(":" + strconv.FormatInt(n, 10)) }
func (r *recorder) BulkString(s string)   { r.add("$" + s) }
func (r *recorder) SimpleString(s string) { r.add("+" + s) }
func (r *recorder) NullBulk()             { r.add("_") }
func (r *recorder) add(t string)          { r.tokens = append(r.tokens, t) }

// readRESP3 turns a RESP3 reply captured from redis-server into the tokens
// a recorder would note for the same calls.
func readRESP3(t *testing.T, raw []byte) []string {
	t.Helper()
	br := bufio.NewReader(bytes.NewReader(raw))
	var tokens []string
	for {
		line, err := br.ReadString('\n')
		if err == io.EOF && line == "" {
			return tokens
		}
		if err != nil || !strings.HasSuffix(line, "\r\n") {
			t.Fatalf("malformed RESP3 line %q: %v", line, err)
		}
		line = strings.TrimSuffix(line, "\r\n")
		switch line[0] {
		case '*', '%', '~', ':', '+':
			tokens = append(tokens, line)
		case '_':
			tokens = append(tokens, "_")
		case '$':
			n, err := strconv.Atoi(line[1:])
			if err != nil {
				t.Fatalf("bad bulk length %q", line)
			}
			data := make([]byte, n+2)
			if _, err := io.ReadFull(br, data); err != nil {
				t.Fatalf("short bulk: %v", err)
			}
			tokens = append(tokens, "$"+string(data[:n]))
		default:
			t.Fatalf("unexpected RESP3 type in %q", line)
		}
	}
}

func goldenTokens(t *testing.T, name string) []string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return readRESP3(t, raw)
}

func diffTokens(t *testing.T, got, want []string) {
	t.Helper()
	for i := 0; i < len(got) || i < len(want); i++ {
		var g, w string
		if i < len(got) {
			g = got[i]
		}
		if i < len(want) {
			w = want[i]
		}
		if g != w {
			t.Fatalf("token %d: got %q, want %q\ngot:  %s\nwant: %s", i, g, w,
				strings.Join(got[max(0, i-5):min(len(got), i+5)], " | "),
				strings.Join(want[max(0, i-5):min(len(want), i+5)], " | "))
		}
	}
}

// The golden files are redis-server 7.0.15's RESP3 answers to
// COMMAND INFO <name> (a one-element array) and COMMAND DOCS <name> (a
// one-entry map), captured with HELLO 3.
func TestWriteInfoMatchesRedis(t *testing.T) {
	tests := []struct {
		golden string
		spec   *Spec
	}{
		{"info_get.resp3", getSpec()},
		{"info_set.resp3", setSpec()},
		{"info_mset.resp3", msetSpec()},
		{"info_xread.resp3", xreadSpec()},
		{"info_zunionstore.resp3", zunionstoreSpec()},
		{"info_eval.resp3", evalSpec()},
		{"info_migrate.resp3", migrateSpec()},
		{"info_sort.resp3", sortSpec()},
		{"info_getset.resp3", getsetSpec()},
		{"info_pfdebug.resp3", pfdebugSpec()},
		{"info_config_help.resp3", configSpec().Subcommands[1]},
	}
	for _, tt := range tests {
		t.Run(tt.spec.Name, func(t *testing.T) {
			want := goldenTokens(t, tt.golden)
			if want[0] != "*1" {
				t.Fatalf("golden %s does not start with a one-element array", tt.golden)
			}
			var r recorder
			WriteInfo(&r, tt.spec)
			diffTokens(t, r.tokens, want[1:])
		})
	}
}

func TestWriteDocsMatchesRedis(t *testing.T) {
	tests := []struct {
		golden string
		spec   *Spec
	}{
		{"docs_get.resp3", getSpec()},
		{"docs_set.resp3", setSpec()},
		{"docs_getset.resp3", getsetSpec()},
		{"docs_zunionstore.resp3", zunionstoreSpec()},
		{"docs_eval.resp3", evalSpec()},
		{"docs_pfdebug.resp3", pfdebugSpec()},
		{"docs_sort.resp3", sortSpec()},
		{"docs_config_help.resp3", configSpec().Subcommands[1]},
	}
	for _, tt := range tests {
		t.Run(tt.spec.Name, func(t *testing.T) {
			want := goldenTokens(t, tt.golden)
			if want[0] != "%1" || want[1] != "$"+tt.spec.Name {
				t.Fatalf("golden %s does not start with a one-entry map for %s", tt.golden, tt.spec.Name)
			}
			var r recorder
			WriteDocs(&r, tt.spec)
			diffTokens(t, r.tokens, want[2:])
		})
	}
}

// Containers are checked by hand: Redis lists subcommands in hash order,
// which no golden file can pin down.
func TestWriteContainer(t *testing.T) {
	cfg := configSpec()
	t.Run("info", func(t *testing.T) {
		var r recorder
		WriteInfo(&r, cfg)
		want := []string{
			"*10", "$config", ":-2", "~0", ":0", ":0", ":0", "~1", "+@slow", "~0", "~0",
			"*2",
			"*10", "$config|get", ":-3", "~4", "+admin", "+noscript", "+loading", "+stale",
			":0", ":0", ":0", "~3", "+@admin", "+@slow", "+@dangerous",
			"~0", "~0", "~0",
			"*10", "$config|help", ":2", "~2", "+loading", "+stale",
			":0", ":0", ":0", "~1", "+@slow", "~0", "~0", "~0",
		}
		diffTokens(t, r.tokens, want)
	})
	t.Run("docs", func(t *testing.T) {
		var r recorder
		WriteDocs(&r, cfg)
		want := []string{
			"%5",
			"$summary", "$A container for server configuration commands",
			"$since", "$2.0.0", "$group", "$server", "$complexity", "$Depends on subcommand.",
			"$subcommands", "%2",
			"$config|get", "%4",
			"$summary", "$Get the values of configuration parameters",
			"$since", "$2.0.0", "$group", "$server",
			"$arguments", "*1", "%3", "$name", "$parameter", "$type", "$string", "$flags", "~1", "+multiple",
			"$config|help", "%4",
			"$summary", "$Show helpful text about the different subcommands",
			"$since", "$5.0.0", "$group", "$server", "$complexity", "$O(1)",
		}
		diffTokens(t, r.tokens, want)
	})
}

func TestWriteEdgeCases(t *testing.T) {
	tests := []struct {
		name  string
		write func(ReplyWriter)
		want  []string
	}{
		{"unknown command info is null", func(w ReplyWriter) { WriteInfo(w, nil) }, []string{"_"}},
		{
			"docs without summary or since send nulls",
			func(w ReplyWriter) { WriteDocs(w, &Spec{Name: "x", Arity: 1, Group: "generic"}) },
			[]string{"%3", "$summary", "_", "$since", "_", "$group", "$generic"},
		},
		{
			"argument deprecated_since",
			func(w ReplyWriter) {
				WriteDocs(w, &Spec{Name: "x", Arity: 1, Summary: "s", Since: "1", Group: "g", Args: []Arg{
					{Name: "ip:port", Type: ArgString, DeprecatedSince: "2.8.12"},
				}})
			},
			[]string{
				"%4", "$summary", "$s", "$since", "$1", "$group", "$g", "$arguments", "*1",
				"%3", "$name", "$ip:port", "$type", "$string", "$deprecated_since", "$2.8.12",
			},
		},
		{
			"LockAll is not reported",
			func(w ReplyWriter) { WriteInfo(w, &Spec{Name: "flushdb", Arity: -1, Flags: Write | LockAll}) },
			[]string{"*10", "$flushdb", ":-1", "~1", "+write", ":0", ":0", ":0", "~2", "+@write", "+@slow", "~0", "~0", "~0"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var r recorder
			tt.write(&r)
			diffTokens(t, r.tokens, tt.want)
		})
	}
}

// Every count a writer is given must match the values that follow, or a
// RESP client would misread the stream; this checks it for every spec.
func TestWriteCountsAreConsistent(t *testing.T) {
	for _, s := range testTable().All() {
		for name, write := range map[string]func(ReplyWriter, *Spec){"info": WriteInfo, "docs": WriteDocs} {
			var r recorder
			write(&r, s)
			rest, err := consume(r.tokens)
			if err != nil || len(rest) != 0 {
				t.Errorf("%s %s: malformed token stream (%v, %d left)", name, s.Name, err, len(rest))
			}
		}
	}
}

// consume reads one value off tokens and returns the rest.
func consume(tokens []string) ([]string, error) {
	if len(tokens) == 0 {
		return nil, fmt.Errorf("missing value")
	}
	tok, rest := tokens[0], tokens[1:]
	n := 0
	switch tok[0] {
	case '*', '~':
		n, _ = strconv.Atoi(tok[1:])
	case '%':
		n, _ = strconv.Atoi(tok[1:])
		n *= 2
	}
	for range n {
		var err error
		if rest, err = consume(rest); err != nil {
			return nil, err
		}
	}
	return rest, nil
}
