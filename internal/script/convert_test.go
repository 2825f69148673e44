package script

import (
	"strings"
	"testing"
)

// TestLuaToReply covers luaReplyToRedisReply's rules in both protocols and
// for both script protocols (redis.setresp).
func TestLuaToReply(t *testing.T) {
	cases := []struct {
		name, body string
		r2, r3     string // client RESP2 / RESP3
	}{
		{"string", "return 'hello'", "$5\r\nhello\r\n", "$5\r\nhello\r\n"},
		{"integer", "return 100.5", ":100\r\n", ":100\r\n"},
		{"negative truncates toward zero", "return -3.9", ":-3\r\n", ":-3\r\n"},
		{"nan", "return 0/0", ":-9223372036854775808\r\n", ":-9223372036854775808\r\n"},
		{"true", "return true", ":1\r\n", ":1\r\n"},
		{"false", "return false", "$-1\r\n", "_\r\n"},
		{"nil", "return nil", "$-1\r\n", "_\r\n"},
		{"no value", "local x = 1", "$-1\r\n", "_\r\n"},
		{"status", "return {ok='fine'}", "+fine\r\n", "+fine\r\n"},
		{"status with newline", "return {ok='a\\r\\nb'}", "+a  b\r\n", "+a  b\r\n"},
		{"error", "return {err='ERR this is an error'}", "-ERR this is an error\r\n", "-ERR this is an error\r\n"},
		{"error without code", "return {err='My Error'}", "-My Error\r\n", "-My Error\r\n"},
		{"error_reply adds nothing to a code", "return redis.error_reply('MY_ERR_CODE custom msg')", "-MY_ERR_CODE custom msg\r\n", "-MY_ERR_CODE custom msg\r\n"},
		{"error_reply dash", "return redis.error_reply('-X y')", "-X y\r\n", "-X y\r\n"},
		{"error_reply empty", "return redis.error_reply('')", "-ERR \r\n", "-ERR \r\n"},
		{"error_reply bad args", "return redis.error_reply(1)", "-ERR wrong number or type of arguments\r\n", "-ERR wrong number or type of arguments\r\n"},
		{"status_reply", "return redis.status_reply('MY_OK_CODE custom msg')", "+MY_OK_CODE custom msg\r\n", "+MY_OK_CODE custom msg\r\n"},
		{"array", "return {1,2,3,'ciao',{1,2}}", "*5\r\n:1\r\n:2\r\n:3\r\n$4\r\nciao\r\n*2\r\n:1\r\n:2\r\n", "*5\r\n:1\r\n:2\r\n:3\r\n$4\r\nciao\r\n*2\r\n:1\r\n:2\r\n"},
		{"array stops at nil", "return {1,nil,3}", "*1\r\n:1\r\n", "*1\r\n:1\r\n"},
		{"array of bools", "return {true,false}", "*2\r\n:1\r\n$-1\r\n", "*2\r\n:1\r\n_\r\n"},
		{"err wins over ok", "return {err='E x', ok='y'}", "-E x\r\n", "-E x\r\n"},
		{"err not a string", "return {err=1, 5}", "*1\r\n:5\r\n", "*1\r\n:5\r\n"},
		{"double", "return {double=3.5}", "$3\r\n3.5\r\n", ",3.5\r\n"},
		{"double inf", "return {double=1/0}", "$3\r\ninf\r\n", ",inf\r\n"},
		{"big number", "return {big_number='123456789012345678901234567890'}", "$30\r\n123456789012345678901234567890\r\n", "(123456789012345678901234567890\r\n"},
		{"verbatim", "return {verbatim_string={format='txt', string='hi'}}", "$2\r\nhi\r\n", "=6\r\ntxt:hi\r\n"},
		{"map", "return {map={a=1}}", "*2\r\n$1\r\na\r\n:1\r\n", "%1\r\n$1\r\na\r\n:1\r\n"},
		{"set", "return {set={a=true}}", "*1\r\n$1\r\na\r\n", "~1\r\n$1\r\na\r\n"},
		{"_G is an empty array", "return _G", "*0\r\n", "*0\r\n"},
		{"metatable not consulted", "local a = {}; setmetatable(a,{__index=function() foo() end}) return a", "*0\r\n", "*0\r\n"},
		{"resp3 script true", "redis.setresp(3) return true", ":1\r\n", "#t\r\n"},
		{"resp3 script false", "redis.setresp(3) return false", ":0\r\n", "#f\r\n"},
		{"self reference", "local t = {} t[1] = t return t", "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newTestEngine(t)
			for proto, want := range map[int]string{2: c.r2, 3: c.r3} {
				got, err := evalRaw(t, e, &fakeHost{}, proto, c.body, nil, nil)
				if err != nil {
					t.Fatalf("RESP%d: %v", proto, err)
				}
				if c.name == "self reference" {
					depth := strings.Count(got, "*1\r\n")
					if depth != 7995 || !strings.HasSuffix(got, "-ERR reached lua stack limit\r\n") {
						t.Fatalf("RESP%d: %d levels, ends %q", proto, depth, got[len(got)-40:])
					}
					continue
				}
				if got != want {
					t.Errorf("RESP%d: got %q, want %q", proto, got, want)
				}
			}
		})
	}
}

// TestReplyToLua covers redisProtocolToLuaType: what redis.call returns
// for each reply type.
func TestReplyToLua(t *testing.T) {
	cases := []struct {
		name, reply string
		resp3       bool
		want        string
	}{
		{"integer", ":42\r\n", false, "number:42"},
		{"bulk", "$3\r\nabc\r\n", false, "string:abc"},
		{"empty bulk", "$0\r\n\r\n", false, "string:"},
		{"null bulk", "$-1\r\n", false, "boolean:false"},
		{"null array", "*-1\r\n", false, "boolean:false"},
		{"status", "+OK\r\n", false, "{ok=string:OK}"},
		{"array", "*3\r\n:1\r\n$1\r\nx\r\n*0\r\n", false, "{1=number:1,2=string:x,3={}}"},
		{"array with null", "*2\r\n$-1\r\n:2\r\n", false, "{1=boolean:false,2=number:2}"},
		{"map", "%2\r\n$1\r\na\r\n:1\r\n$1\r\nb\r\n#t\r\n", true, "{map={a=number:1,b=boolean:true}}"},
		{"set", "~2\r\n$1\r\na\r\n$1\r\nb\r\n", true, "{set={a=boolean:true,b=boolean:true}}"},
		{"null", "_\r\n", true, "nil:nil"},
		{"true", "#t\r\n", true, "boolean:true"},
		{"false", "#f\r\n", true, "boolean:false"},
		{"double", ",3.25\r\n", true, "{double=number:3.25}"},
		{"double inf", ",inf\r\n", true, "{double=number:inf}"},
		{"big number", "(12345678901234567890\r\n", true, "{big_number=string:12345678901234567890}"},
		{"verbatim", "=8\r\ntxt:abcd\r\n", true, "{verbatim_string={format=string:txt,string=string:abcd}}"},
		{"attribute skipped", "|1\r\n$3\r\nkey\r\n$3\r\nval\r\n:7\r\n", true, "number:7"},
		{"push", ">2\r\n$1\r\na\r\n:1\r\n", true, "{1=string:a,2=number:1}"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newTestEngine(t)
			h := &fakeHost{replies: map[string]string{"x": c.reply}}
			pre := ""
			if c.resp3 {
				pre = "redis.setresp(3) "
			}
			got, err := evalRaw(t, e, h, 2, dumpLua+pre+"return dump(redis.call('x'))", nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			want := "$" + itoa(len(c.want)) + "\r\n" + c.want + "\r\n"
			if got != want {
				t.Errorf("got %q, want %q", got, want)
			}
			wantResp := 2
			if c.resp3 {
				wantResp = 3
			}
			if len(h.resps) != 1 || h.resps[0] != wantResp {
				t.Errorf("host asked for RESP %v, want %d", h.resps, wantResp)
			}
		})
	}
}

// TestReplyRoundTrip returns a command's reply straight to the client.
func TestReplyRoundTrip(t *testing.T) {
	cases := []struct{ reply, r2, r3 string }{
		{"%1\r\n$1\r\na\r\n:1\r\n", "*2\r\n$1\r\na\r\n:1\r\n", "%1\r\n$1\r\na\r\n:1\r\n"},
		{",1.5\r\n", "$3\r\n1.5\r\n", ",1.5\r\n"},
		{"_\r\n", "$-1\r\n", "_\r\n"},
		{"#f\r\n", ":0\r\n", "#f\r\n"},
		{"(1\r\n", "$1\r\n1\r\n", "(1\r\n"},
		{"=6\r\nmkd:xy\r\n", "$2\r\nxy\r\n", "=6\r\nmkd:xy\r\n"},
	}
	for _, c := range cases {
		e := newTestEngine(t)
		h := &fakeHost{replies: map[string]string{"x": c.reply}}
		for proto, want := range map[int]string{2: c.r2, 3: c.r3} {
			got, err := evalRaw(t, e, h, proto, "redis.setresp(3) return redis.call('x')", nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Errorf("%q to RESP%d: got %q, want %q", c.reply, proto, got, want)
			}
		}
	}
}
