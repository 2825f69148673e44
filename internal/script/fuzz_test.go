package script

import (
	"bytes"
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"

	"github.com/cairndb/cairn/internal/resp"
)

// FuzzParseReply feeds arbitrary bytes to the reply parser: it must return
// a value or an error, never panic or hang, and whatever it accepts must
// write back out as a reply.
func FuzzParseReply(f *testing.F) {
	for _, s := range []string{
		"+OK\r\n", "-ERR x\r\n", ":1\r\n", "$3\r\nabc\r\n", "$-1\r\n", "*-1\r\n",
		"*2\r\n:1\r\n*1\r\n$0\r\n\r\n", "%1\r\n+a\r\n,1.5\r\n", "~2\r\n#t\r\n#f\r\n",
		"_\r\n", "(123\r\n", "=8\r\ntxt:abcd\r\n", "!5\r\nERR x\r\n", "|1\r\n+a\r\n+b\r\n:3\r\n",
		">1\r\n:1\r\n", "*99999999999\r\n", "$5\r\nab\r\n", "%1\r\n", ",nan\r\n", ",inf\r\n",
		strings.Repeat("*1\r\n", 2000) + ":1\r\n",
	} {
		f.Add([]byte(s))
	}
	L := lua.NewState(lua.Options{SkipOpenLibs: true})
	defer L.Close()
	f.Fuzz(func(t *testing.T, b []byte) {
		v, err := parseReply(L, b, 100)
		if err != nil {
			return
		}
		var buf bytes.Buffer
		w := resp.NewWriter(&buf)
		w.SetProtocol(3)
		rw := replyWriter{w: w, scriptRES: 3}
		if countReply(v, replyBaseTop, 1<<20) <= 1<<20 {
			rw.write(v, replyBaseTop)
		}
		w.Flush()
	})
}

// FuzzParseShebang checks the shebang parser never panics and that an
// accepted shebang's length points at its newline.
func FuzzParseShebang(f *testing.F) {
	for _, s := range []string{
		"return 1", "#!lua\nreturn 1", "#!lua flags=no-writes,allow-oom\n", "#!lua flags=\n",
		"#!python\n", "#!lua name=x\n", "#!", "#!\"lua\"\n", "#!lua 'a\n", "#!lua \"\\x41\"\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		flags, n, err := ParseShebang(b)
		if err != nil {
			return
		}
		if flags&FlagEvalCompat != 0 {
			if n != 0 || bytes.HasPrefix(b, []byte("#!")) {
				t.Fatalf("compat with shebang length %d", n)
			}
			return
		}
		if n >= len(b) || b[n] != '\n' {
			t.Fatalf("shebang length %d does not end at a newline", n)
		}
	})
}

// FuzzParseLibraryHeader checks the library header parser never panics
// and that Code is the payload after the header line.
func FuzzParseLibraryHeader(f *testing.F) {
	for _, s := range []string{
		"#!lua name=lib\nredis.register_function('f', function() end)", "#!lua\n", "#!lua name=a name=b\n",
		"#!lua NAME=x\n", "#!lua foo\n", "return 1", "#!lua name='a b'\n", "#!lua name=\"unterminated\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		h, err := ParseLibraryHeader(b)
		if err != nil {
			return
		}
		if !bytes.HasSuffix(b, h.Code) || len(h.Code) == 0 || h.Code[0] != '\n' {
			t.Fatalf("code %q is not the payload's tail after the header", h.Code)
		}
	})
}

func TestSplitArgs(t *testing.T) {
	cases := []struct {
		in   string
		want []string
		ok   bool
	}{
		{"a b  c", []string{"a", "b", "c"}, true},
		{`"a b" c`, []string{"a b", "c"}, true},
		{`'a\'b'`, []string{"a'b"}, true},
		{`"\x41\n"`, []string{"A\n"}, true},
		{`"a"b`, nil, false},
		{`"abc`, nil, false},
		{`'abc`, nil, false},
		{"", nil, true},
	}
	for _, c := range cases {
		got, ok := splitArgs([]byte(c.in))
		if ok != c.ok || strings.Join(got, "|") != strings.Join(c.want, "|") {
			t.Errorf("%q: got %q %v, want %q %v", c.in, got, ok, c.want, c.ok)
		}
	}
}
