package command

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseArgs(t *testing.T) {
	tests := []struct {
		syntax string
		want   []Arg
	}{
		{"", nil},
		{"key:key", []Arg{{Name: "key", Type: ArgKey}}},
		{"key:key value", []Arg{{Name: "key", Type: ArgKey}, {Name: "value", Type: ArgString}}},
		// Key arguments link to the key specs in order unless told.
		{"source:key destination:key", []Arg{
			{Name: "source", Type: ArgKey}, {Name: "destination", Type: ArgKey, KeySpecIndex: 1},
		}},
		{"key1:key key2:key#0", []Arg{{Name: "key1", Type: ArgKey}, {Name: "key2", Type: ArgKey}}},
		{"BY pattern:pattern#1", []Arg{{Name: "pattern", Type: ArgPattern, Token: "BY", KeySpecIndex: 1}}},
		{"[count:integer]{6.2.0}", []Arg{{Name: "count", Type: ArgInteger, Optional: true, Since: "6.2.0"}}},
		{"key:key... timeout:double", []Arg{
			{Name: "key", Type: ArgKey, Multiple: true}, {Name: "timeout", Type: ArgDouble},
		}},
		{"EX seconds:integer", []Arg{{Name: "seconds", Type: ArgInteger, Token: "EX"}}},
		{"[WEIGHTS weight:integer...]", []Arg{
			{Name: "weight", Type: ArgInteger, Token: "WEIGHTS", Optional: true, Multiple: true},
		}},
		// A group of one tokened element with "..." repeats the token.
		{"[GET pattern:pattern#1]...", []Arg{{Name: "pattern", Type: ArgPattern, Token: "GET", KeySpecIndex: 1,
			Optional: true, Multiple: true, MultipleToken: true}}},
		{"(ID id:integer)...", []Arg{{Name: "id", Type: ArgInteger, Token: "ID", Multiple: true, MultipleToken: true}}},
		{"[GET]", []Arg{{Name: "get", Type: ArgPureTok, Token: "GET", Optional: true}}},
		{"[change=CH]{3.0.2}", []Arg{{Name: "change", Type: ArgPureTok, Token: "CH", Optional: true, Since: "3.0.2"}}},
		{`"lib-name" libname`, []Arg{{Name: "libname", Type: ArgString, Token: "lib-name"}}},
		{`"~"`, []Arg{{Name: "~", Type: ArgPureTok, Token: "~"}}},
		{"'ip:port'{deprecated 2.8.12}", []Arg{{Name: "ip:port", Type: ArgString, DeprecatedSince: "2.8.12"}}},
		{`[ADDR addr{display "ip:port"}]`, []Arg{{Name: "addr", Type: ArgString, Token: "ADDR", Optional: true, DisplayText: "ip:port"}}},
		{`x{1.0.0, deprecated 2.0.0, display "X"}`, []Arg{{Name: "x", Type: ArgString, Since: "1.0.0", DeprecatedSince: "2.0.0", DisplayText: "X"}}},
		{"where=(LEFT | RIGHT)", []Arg{{Name: "where", Type: ArgOneOf, Args: []Arg{
			{Name: "left", Type: ArgPureTok, Token: "LEFT"}, {Name: "right", Type: ArgPureTok, Token: "RIGHT"},
		}}}},
		{"[aggregate=AGGREGATE (SUM | MIN)]", []Arg{{Name: "aggregate", Type: ArgOneOf, Token: "AGGREGATE", Optional: true, Args: []Arg{
			{Name: "sum", Type: ArgPureTok, Token: "SUM"}, {Name: "min", Type: ArgPureTok, Token: "MIN"},
		}}}},
		{"[limit=LIMIT (offset:integer count:integer)]", []Arg{{Name: "limit", Type: ArgBlock, Token: "LIMIT", Optional: true, Args: []Arg{
			{Name: "offset", Type: ArgInteger}, {Name: "count", Type: ArgInteger},
		}}}},
		// A named group of one is a block, never the element alone.
		{"parameter=(parameter)...", []Arg{{Name: "parameter", Type: ArgBlock, Multiple: true, Args: []Arg{
			{Name: "parameter", Type: ArgString},
		}}}},
		{"[id=ID (client-id:integer...){6.2.0}]", []Arg{{Name: "id", Type: ArgBlock, Token: "ID", Optional: true, Since: "6.2.0", Args: []Arg{
			{Name: "client-id", Type: ArgInteger, Multiple: true},
		}}}},
		{"zadd-like=[a | b=(c:key d)]...", []Arg{{Name: "zadd-like", Type: ArgOneOf, Optional: true, Multiple: true, Args: []Arg{
			{Name: "a", Type: ArgString},
			{Name: "b", Type: ArgBlock, Args: []Arg{{Name: "c", Type: ArgKey}, {Name: "d", Type: ArgString}}},
		}}}},
		{"  a   b  ", []Arg{{Name: "a", Type: ArgString}, {Name: "b", Type: ArgString}}},
	}
	for _, tt := range tests {
		got, err := ParseArgs(tt.syntax)
		if err != nil {
			t.Errorf("ParseArgs(%q): %v", tt.syntax, err)
			continue
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("ParseArgs(%q) =\n  %+v\nwant\n  %+v", tt.syntax, got, tt.want)
		}
	}
}

func TestParseArgsZADD(t *testing.T) {
	got := MustParseArgs("key:key condition=[NX | XX]{3.0.2} comparison=[GT | LT]{6.2.0} " +
		"[change=CH]{3.0.2} [increment=INCR]{3.0.2} score_member=(score:double member)...")
	want := []Arg{
		{Name: "key", Type: ArgKey},
		{Name: "condition", Type: ArgOneOf, Since: "3.0.2", Optional: true, Args: []Arg{
			{Name: "nx", Type: ArgPureTok, Token: "NX"}, {Name: "xx", Type: ArgPureTok, Token: "XX"},
		}},
		{Name: "comparison", Type: ArgOneOf, Since: "6.2.0", Optional: true, Args: []Arg{
			{Name: "gt", Type: ArgPureTok, Token: "GT"}, {Name: "lt", Type: ArgPureTok, Token: "LT"},
		}},
		{Name: "change", Type: ArgPureTok, Token: "CH", Since: "3.0.2", Optional: true},
		{Name: "increment", Type: ArgPureTok, Token: "INCR", Since: "3.0.2", Optional: true},
		{Name: "score_member", Type: ArgBlock, Multiple: true, Args: []Arg{
			{Name: "score", Type: ArgDouble}, {Name: "member", Type: ArgString},
		}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("ZADD arguments =\n  %+v\nwant\n  %+v", got, want)
	}
}

func TestParseArgsErrors(t *testing.T) {
	for _, tt := range []struct{ syntax, err string }{
		{"[", "empty group"},
		{"[a", `expected ']'`},
		{"(a]", `expected ')'`},
		{"a]", `unexpected ']'`},
		{"[]", "empty group"},
		{"[a |]", "empty group"},
		{"(a | b)", "needs a name"},
		{"(a b)", "needs a name"},
		{"x=(a b | c)", "named block"},
		{"x=a", "names an argument"},
		{"a:float", "unknown argument type"},
		{"a:keys", "unknown argument type"},
		{"a#", "key spec index"},
		{"a#0", "only a key argument"},
		{"a{}", "version"},
		{"a{1..2}", "version"},
		{"a{1.2", `expected "," or "}"`},
		{"a{display x}", "must be quoted"},
		{"'ip", "unterminated"},
		{"''", "empty quoted"},
		{"EX (a)", ""},
		{"A B c", ""},
		{"a[b]", "space after"},
		{"a!", "space after"},
		{"!", "expected an argument"},
		{"EX ED seconds", ""},
		{"T (x=T (y z))", "has one"},
		{"T x=(y)", "space after"},
		{strings.Repeat("[", maxArgDepth+1) + "a" + strings.Repeat("]", maxArgDepth+1), "nest deeper"},
	} {
		_, err := ParseArgs(tt.syntax)
		switch {
		case tt.err == "" && err != nil:
			t.Errorf("ParseArgs(%q): %v", tt.syntax, err)
		case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
			t.Errorf("ParseArgs(%q) error = %v, want one saying %q", tt.syntax, err, tt.err)
		}
	}
}

// The argument lists of the golden specs (Redis 7.0.15's own) survive a
// trip through FormatArgs and ParseArgs.
func TestFormatArgsRoundTrip(t *testing.T) {
	for _, s := range []*Spec{getSpec(), setSpec(), zunionstoreSpec(), evalSpec(), sortSpec(), getsetSpec()} {
		text, err := FormatArgs(s.Args)
		if err != nil {
			t.Errorf("%s: FormatArgs: %v", s.Name, err)
			continue
		}
		back, err := ParseArgs(text)
		if err != nil {
			t.Errorf("%s: ParseArgs(%q): %v", s.Name, text, err)
			continue
		}
		if !reflect.DeepEqual(back, s.Args) {
			t.Errorf("%s: %q reads back as\n  %+v\nwant\n  %+v", s.Name, text, back, s.Args)
		}
	}
	if got, _ := FormatArgs(setSpec().Args); got != "key:key value condition=[NX | XX]{2.6.12} [GET{6.2.0}] "+
		"expiration=[EX seconds:integer{2.6.12} | PX milliseconds:integer{2.6.12} | EXAT unix-time-seconds:unix-time{6.2.0} | "+
		"PXAT unix-time-milliseconds:unix-time{6.2.0} | KEEPTTL{6.0.0}]" {
		t.Errorf("FormatArgs(SET) = %q", got)
	}
}

func TestFormatArgsRejects(t *testing.T) {
	for _, args := range [][]Arg{
		{{Name: "x", Type: ArgOneOf}},
		{{Name: "x", Type: ArgOneOf, Args: []Arg{{Name: "a", Type: ArgString}}}},
		{{Name: "", Type: ArgString}},
		{{Name: "x", Type: ArgPureTok, Optional: true}},
		{{Name: "x", Type: ArgString, MultipleToken: true, Multiple: true}},
		{{Name: "x", Type: ArgString, Token: "T", MultipleToken: true}},
		{{Name: "x", Type: "float"}},
		{{Name: "x'\"", Type: ArgString}},
		{{Name: "x", Type: ArgString, Token: `"`}},
		{{Name: "x", Type: ArgString, DisplayText: `"`}},
		{{Name: "x", Type: ArgString, KeySpecIndex: -1}},
		{{Name: "x", Type: ArgBlock, KeySpecIndex: 1, Args: []Arg{{Name: "a", Type: ArgString}}}},
	} {
		if s, err := FormatArgs(args); err == nil {
			t.Errorf("FormatArgs(%+v) = %q, want an error", args, s)
		}
	}
}

// FuzzParseArgs checks that ParseArgs never panics and that whatever it
// accepts, FormatArgs writes back as text that parses to the same
// arguments. The seeds run under plain go test.
func FuzzParseArgs(f *testing.F) {
	for _, seed := range []string{
		"key:key condition=[NX | XX]{3.0.2} comparison=[GT | LT]{6.2.0} [change=CH]{3.0.2} [increment=INCR]{3.0.2} score_member=(score:double member)...",
		"filter=('ip:port'{deprecated 2.8.12} | new-format=([ID client-id:integer{2.8.12}] | [USER username] | [SKIPME 'yes/no'])...)",
		"[GET pattern:pattern#1]... [limit=LIMIT (offset:integer count:integer)] parameter=(parameter)...",
		`"lib-name" x{display "a b"} [id=ID (client-id:integer...){6.2.0}] key1:key key2:key#0`,
		"a=[b | c=[d e]]...", "(T x)...", "[A]...", "x=(y)", "'a'='B'", `"="`, "T (x...)",
		"A [0=(00)] 0000:key 0", "(A) (A) 0",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, syntax string) {
		args, err := ParseArgs(syntax)
		if err != nil {
			return
		}
		text, err := FormatArgs(args)
		if err != nil {
			t.Fatalf("ParseArgs(%q) gave %+v, which FormatArgs rejects: %v", syntax, args, err)
		}
		back, err := ParseArgs(text)
		if err != nil {
			t.Fatalf("ParseArgs(%q) → FormatArgs %q does not parse: %v", syntax, text, err)
		}
		if !reflect.DeepEqual(back, args) {
			t.Fatalf("ParseArgs(%q) =\n  %+v\nbut its FormatArgs %q reads back as\n  %+v", syntax, args, text, back)
		}
	})
}

// The expected lines are the syntax lines of the Redis command reference.
func TestUsage(t *testing.T) {
	for _, tt := range []struct{ syntax, want string }{
		{"key:key condition=[NX | XX]{3.0.2} comparison=[GT | LT]{6.2.0} [change=CH]{3.0.2} [increment=INCR]{3.0.2} score_member=(score:double member)...",
			"key [NX | XX] [GT | LT] [CH] [INCR] score member [score member ...]"},
		{"destination:key numkeys:integer key:key... [WEIGHTS weight:integer...] [aggregate=AGGREGATE (SUM | MIN | MAX)]",
			"destination numkeys key [key ...] [WEIGHTS weight [weight ...]] [AGGREGATE <SUM | MIN | MAX>]"},
		{"source:key destination:key wherefrom=(LEFT | RIGHT) whereto=(LEFT | RIGHT)",
			"source destination <LEFT | RIGHT> <LEFT | RIGHT>"},
		{"key:key [offset_count=LIMIT (offset:integer count:integer)]", "key [LIMIT offset count]"},
		{"[GET pattern:pattern#1]...", "[GET pattern [GET pattern ...]]"},
		{"parameter=(parameter)...", "parameter [parameter ...]"},
		{"key:key condition=[FNX | FXX] fields=FIELDS (numfields:integer data=(field value)...)",
			"key [FNX | FXX] FIELDS numfields field value [field value ...]"},
		{`filter=(old-format{deprecated 2.8.12, display "ip:port"} | new-format=([ID client-id:integer] | [skipme=SKIPME (YES | NO)])...)`,
			"<ip:port | <[ID client-id] | [SKIPME <YES | NO>] [[ID client-id] | [SKIPME <YES | NO>] ...]>>"},
	} {
		if got := Usage(MustParseArgs(tt.syntax)); got != tt.want {
			t.Errorf("Usage(%q) =\n  %s\nwant\n  %s", tt.syntax, got, tt.want)
		}
	}
}
