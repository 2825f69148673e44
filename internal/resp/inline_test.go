package resp

import "testing"

// The expectations were checked against redis-server 7.0 with ECHO.
func TestSplitInline(t *testing.T) {
	tests := []struct {
		in   string
		want []string // nil with ok false: unbalanced quotes
		ok   bool
	}{
		{"", nil, true},
		{"   \t ", nil, true},
		{"PING", []string{"PING"}, true},
		{"  SET  k\tv  ", []string{"SET", "k", "v"}, true},
		{"\v ECHO x", []string{"ECHO", "x"}, true},
		// \v and \f separate arguments only between them, not inside one.
		{"ECHO a\vb", []string{"ECHO", "a\vb"}, true},
		{"ECHO a\fb", []string{"ECHO", "a\fb"}, true},
		{"a\rb\nc", []string{"a", "b", "c"}, true},

		{`ECHO "a b"`, []string{"ECHO", "a b"}, true},
		{`ECHO ""`, []string{"ECHO", ""}, true},
		{`ECHO ''`, []string{"ECHO", ""}, true},
		{`ECHO "a\x41\n"`, []string{"ECHO", "aA\n"}, true},
		{`"\xAf\xfA"`, []string{"\xaf\xfa"}, true},
		{`"\x00"`, []string{"\x00"}, true},
		{`"\x4g"`, []string{"x4g"}, true},
		{`"\n\r\t\b\a"`, []string{"\n\r\t\b\a"}, true},
		{`"\q\\\""`, []string{`q\"`}, true},
		{`ECHO "x"` + "\v", []string{"ECHO", "x"}, true},
		{`"a"` + "\t" + `'b'`, []string{"a", "b"}, true},
		{`ECHO 'a\'b'`, []string{"ECHO", "a'b"}, true},
		{`ECHO 'a\nb'`, []string{"ECHO", `a\nb`}, true},
		{`ECHO 'a\b'`, []string{"ECHO", `a\b`}, true},
		{`a"b c"`, []string{"ab c"}, true},
		{`a'b c' d`, []string{"ab c", "d"}, true},

		{`ECHO "abc`, nil, false},
		{`ECHO 'abc`, nil, false},
		{`ECHO "a"b`, nil, false},
		{`ECHO 'a'b`, nil, false},
		{`ECHO a"b c"d`, nil, false},
		{`ECHO "a\`, nil, false},
		// \' is an escaped quote even after a backslash.
		{`ECHO '\\'`, nil, false},

		// A NUL ends the line, as in C.
		{"a b\x00c d", []string{"a", "b"}, true},
		{"\"a\x00\"", nil, false},
	}
	for _, tt := range tests {
		arena, spans, ok := splitInline([]byte(tt.in), []byte("junk"), nil)
		if ok != tt.ok {
			t.Errorf("splitInline(%q) ok = %v, want %v", tt.in, ok, tt.ok)
			continue
		}
		if !ok {
			continue
		}
		var got []string
		for _, s := range spans {
			got = append(got, string(arena[s.off:s.end]))
		}
		if len(got) != len(tt.want) {
			t.Errorf("splitInline(%q) = %q, want %q", tt.in, got, tt.want)
			continue
		}
		for i := range got {
			if got[i] != tt.want[i] {
				t.Errorf("splitInline(%q) = %q, want %q", tt.in, got, tt.want)
				break
			}
		}
	}
}
