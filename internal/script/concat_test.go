package script

import (
	"strings"
	"testing"
)

// TestConcat: .. compiled as a call of concat (concat.go) keeps Lua 5.1's
// semantics: numbers turn into strings, chains join from the right with
// __concat metamethods where a value is no string, nested functions and
// library code share it, and a value that cannot be joined raises Lua's
// error.
func TestConcat(t *testing.T) {
	e := NewEngine(Options{})
	t.Cleanup(e.Close)
	cases := []struct{ name, body, want string }{
		{"strings", "return 'a' .. 'b' .. 'c'", "$3\r\nabc\r\n"},
		{"numbers", "return 1 .. '-' .. 2.5 .. '-' .. -3", "$8\r\n1-2.5--3\r\n"},
		{"in a loop", "local s = '' for i = 1, 5 do s = s .. i end return s", "$5\r\n12345\r\n"},
		{"parenthesised", "local a, b = 'x', 'y' return (a .. b) .. (b .. a)", "$4\r\nxyyx\r\n"},
		{"nested function", "local function f(a) return function(b) return a .. b end end return f('p')('q')", "$2\r\npq\r\n"},
		{"table field and call", "local t = {k = 'v' .. 1} return string.upper(t.k .. 'w')", "$3\r\nV1W\r\n"},
		{"metamethod right", "local t = setmetatable({}, {__concat = function(a, b) return '<' .. type(a) .. ',' .. type(b) .. '>' end}) return 'x' .. t .. 'y'", "$15\r\nx<table,string>\r\n"},
		{"metamethod left", "local t = setmetatable({}, {__concat = function(a, b) return 'T' end}) return t .. 'y'", "$1\r\nT\r\n"},
		{"nil", "local x return 'a' .. x", "-ERR user_script:1: attempt to concatenate a nil value script: "},
		{"table", "return {} .. 'a'", "-ERR user_script:1: attempt to concatenate a table value script: "},
		{"boolean right", "return 'a' .. true", "-ERR user_script:1: attempt to concatenate a boolean value script: "},
		{"line", "local a = 1\nlocal b\nreturn a ..\n b", "-ERR user_script:3: attempt to concatenate a nil value script: "},
		{"pcall", "local ok, err = pcall(function() return 'a' .. nil end) return {ok and 1 or 0, err}", "*2\r\n:0\r\n$"},
		{"loadstring", "return loadstring('return 1 .. 2')()", "$2\r\n12\r\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := evalRaw(t, e, &fakeHost{}, 2, c.body, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(got, c.want) {
				t.Errorf("got %q, want prefix %q", got, c.want)
			}
		})
	}
}

// BenchmarkConcat is the cost of .. in a loop, now a call.
func BenchmarkConcat(b *testing.B) {
	e := NewEngine(Options{})
	b.Cleanup(e.Close)
	for b.Loop() {
		if _, err := evalRaw(b, e, &fakeHost{}, 2, "local s for i = 1, 1000 do s = 'key:' .. i end return s", nil, nil); err != nil {
			b.Fatal(err)
		}
	}
}
