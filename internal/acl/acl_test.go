package acl

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cairndb/cairn/internal/command"
)

// testCatalog is a small command table with what the rules need: plain
// commands with read and write keys, a container, channels, categories.
func testCatalog() *Catalog {
	key := func(f command.KeyFlag) []command.KeySpec {
		return []command.KeySpec{{Flags: f, Begin: command.IndexSearch(1), Find: command.RangeKeys(0, 1, 0)}}
	}
	specs := []*command.Spec{
		{Name: "get", Arity: 2, Flags: command.ReadOnly | command.Fast, ACL: command.CatString, KeySpecs: key(command.KeyRO | command.KeyAccess)},
		{Name: "set", Arity: -3, Flags: command.Write, ACL: command.CatString, KeySpecs: key(command.KeyOW | command.KeyUpdate)},
		{Name: "append", Arity: 3, Flags: command.Write, ACL: command.CatString, KeySpecs: key(command.KeyRW | command.KeyInsert)},
		{Name: "hget", Arity: 3, Flags: command.ReadOnly | command.Fast, ACL: command.CatHash, KeySpecs: key(command.KeyRO | command.KeyAccess)},
		{Name: "flushdb", Arity: -1, Flags: command.Write, ACL: command.CatKeyspace | command.CatDangerous},
		{Name: "select", Arity: 2, Flags: command.Fast, ACL: command.CatConnection},
		{Name: "auth", Arity: -2, Flags: command.NoAuth | command.Fast, ACL: command.CatConnection},
		{Name: "publish", Arity: 3, Flags: command.PubSub | command.Fast},
		{Name: "subscribe", Arity: -2, Flags: command.PubSub},
		{Name: "psubscribe", Arity: -2, Flags: command.PubSub},
		{Name: "unsubscribe", Arity: -1, Flags: command.PubSub},
		{Name: "config", Arity: -2, Subcommands: []*command.Spec{
			{Name: "config|get", Arity: -3, Flags: command.Admin},
			{Name: "config|set", Arity: -4, Flags: command.Admin},
		}},
	}
	return NewCatalog(specs)
}

func args(line string) [][]byte {
	var out [][]byte
	for _, w := range strings.Fields(line) {
		out = append(out, []byte(w))
	}
	return out
}

func mustSet(t *testing.T, r *Registry, name string, ops ...string) *User {
	t.Helper()
	u, _, err := r.SetUser(name, ops)
	if err != nil {
		t.Fatalf("SETUSER %s %q: %v", name, ops, err)
	}
	return u
}

// TestDescribe checks the rule text ACL LIST shows, with Redis 7.2's
// ordered command rules.
func TestDescribe(t *testing.T) {
	for _, tt := range []struct {
		ops  []string
		want string
	}{
		{nil, "off sanitize-payload resetchannels -@all"},
		{[]string{"on", "nopass", "~*", "&*", "+@all"}, "on nopass sanitize-payload ~* &* +@all"},
		{[]string{"on", ">pw", "~foo*", "+get", "+set", "&ch*"},
			"on sanitize-payload #30c952fab122c3f9759f02a6d95c3758b246b4fee239957b2d4fee46e26170c4 ~foo* resetchannels &ch* -@all +get +set"},
		{[]string{"%R~r*", "%W~w*", "%RW~rw*", "~a", "%R~a", "(+set ~s*)", "+config|get", "-config|get", "+select|0", "-@string"},
			"off sanitize-payload %R~r* %W~w* ~rw* ~a resetchannels -@all -config|get +select|0 -@string (~s* resetchannels -@all +set)"},
		{[]string{"allcommands", "-@dangerous", "+flushdb"}, "off sanitize-payload resetchannels +@all -@dangerous +flushdb"},
		{[]string{"+config", "-config|set", "+CONFIG"}, "off sanitize-payload resetchannels -@all +config"},
		{[]string{"+config|get", "+config|set", "-config"}, "off sanitize-payload resetchannels -@all -config"},
		{[]string{"+get", "+@all"}, "off sanitize-payload resetchannels +@all"},
		{[]string{"skip-sanitize-payload", "on", "off"}, "off skip-sanitize-payload resetchannels -@all"},
		{[]string{">a", ">b", ">a", "<a", "nopass", ">c", "resetpass"}, "off sanitize-payload resetchannels -@all"},
		{[]string{"(~a", "+get)", "(&x)", "clearselectors", "(~b)"}, "off sanitize-payload resetchannels -@all (~b resetchannels -@all)"},
		{[]string{"on", ">x", "~k", "+get", "(~a)", "reset"}, "off sanitize-payload resetchannels -@all"},
	} {
		r := NewRegistry(testCatalog())
		u := mustSet(t, r, "u", tt.ops...)
		if got := u.Profile().Describe(); got != tt.want {
			t.Errorf("%q:\n got  %s\n want %s", tt.ops, got, tt.want)
		}
	}
}

func TestRuleErrors(t *testing.T) {
	hash := strings.Repeat("a", 64)
	for _, tt := range []struct {
		ops  []string
		want string
	}{
		{[]string{"foo"}, "Error in ACL SETUSER modifier 'foo': Syntax error"},
		{[]string{"+nosuch"}, "Error in ACL SETUSER modifier '+nosuch': Unknown command or category name in ACL"},
		{[]string{"-@nosuch"}, "Error in ACL SETUSER modifier '-@nosuch': Unknown command or category name in ACL"},
		{[]string{"+config|get|x"}, "Error in ACL SETUSER modifier '+config|get|x': Allowing first-arg of a subcommand is not supported"},
		{[]string{"+get|"}, "Error in ACL SETUSER modifier '+get|': Syntax error"},
		{[]string{"+config|nosuch"}, "Error in ACL SETUSER modifier '+config|nosuch': Unknown command or category name in ACL"},
		{[]string{"-select|0"}, "Error in ACL SETUSER modifier '-select|0': Unknown command or category name in ACL"},
		{[]string{"~*", "~a"}, "Error in ACL SETUSER modifier '~a': " + ErrKeyAfterAll.Error()},
		{[]string{"&*", "&a"}, "Error in ACL SETUSER modifier '&a': " + ErrChannelAfterAll.Error()},
		{[]string{"#" + hash[1:]}, "Error in ACL SETUSER modifier '#" + hash[1:] + "': " + ErrBadHash.Error()},
		{[]string{"!" + hash}, "Error in ACL SETUSER modifier '!" + hash + "': " + ErrNoSuchPassword.Error()},
		{[]string{"%X~a"}, "Error in ACL SETUSER modifier '%X~a': Syntax error"},
		{[]string{"%RR~a"}, "Error in ACL SETUSER modifier '%RR~a': Syntax error"},
		{[]string{"%~a"}, "Error in ACL SETUSER modifier '%~a': Syntax error"},
		{[]string{"%"}, "Error in ACL SETUSER modifier '%': Syntax error"},
		{[]string{"~a b"}, "Error in ACL SETUSER modifier '~a b': Syntax error"},
		{[]string{"(~a", "bogus)"}, "Error in ACL SETUSER modifier '(~a bogus)': Syntax error"},
		{[]string{"(~a", "+get"}, "Unmatched parenthesis in acl selector starting at '(~a'."},
		{[]string{"~bad\x00key"}, "Error in ACL SETUSER modifier '~bad': Syntax error"},
	} {
		r := NewRegistry(testCatalog())
		mustSet(t, r, "u", "on", "+get")
		_, _, err := r.SetUser("u", tt.ops)
		if err == nil || err.Error() != tt.want {
			t.Errorf("%q: got %v, want %s", tt.ops, err, tt.want)
		}
		// A refused change leaves the user as it was.
		if got := r.Get("u").Profile().Describe(); got != "on sanitize-payload resetchannels -@all +get" {
			t.Errorf("%q: user changed to %s", tt.ops, got)
		}
	}
	if _, _, err := NewRegistry(testCatalog()).SetUser("a b", nil); !errors.Is(err, ErrUsernameSpaces) {
		t.Errorf("a name with a space: %v", err)
	}
}

// TestCheck: which command lines a user may run, and what a denial reports.
func TestCheck(t *testing.T) {
	cat := testCatalog()
	r := NewRegistry(cat)
	mustSet(t, r, "u", "on", "nopass", "%R~r*", "%W~w*", "~rw*", "&ch*", "+@all", "-flushdb", "-config|set", "-select", "+select|0")
	mustSet(t, r, "s", "on", "-@all", "+get", "~a*", "(+set ~b*)", "(+@hash ~h*)")
	mustSet(t, r, "n", "on", "-@all")
	for _, tt := range []struct {
		user, line string
		want       Reason
		pos        int
	}{
		{"u", "get r1", OK, 0},
		{"u", "get w1", DeniedKey, 1},
		{"u", "get rw1", OK, 0},
		{"u", "set w1 v", OK, 0},
		{"u", "set r1 v", DeniedKey, 1},
		{"u", "append rw1 v", OK, 0},
		{"u", "append w1 v", OK, 0}, // insert only: write permission
		{"u", "flushdb", DeniedCommand, 0},
		{"u", "config get x", OK, 0},
		{"u", "config set x y", DeniedCommand, 0},
		{"u", "select 0", OK, 0},
		{"u", "select 1", DeniedCommand, 0},
		{"u", "publish ch1 m", OK, 0},
		{"u", "publish other m", DeniedChannel, 1},
		{"u", "subscribe ch1 x ch2", DeniedChannel, 2},
		{"u", "psubscribe ch*", OK, 0},
		{"u", "psubscribe c*", DeniedChannel, 1},
		{"u", "unsubscribe other", OK, 0},
		{"s", "get a1", OK, 0},
		{"s", "get b1", DeniedKey, 1},
		{"s", "set b1 v", OK, 0},
		{"s", "set a1 v", DeniedKey, 1},
		{"s", "hget h1 f", OK, 0},
		{"s", "hget a1 f", DeniedKey, 1},
		{"s", "append a1 x", DeniedCommand, 0},
		{"n", "get a", DeniedCommand, 0},
		{"n", "auth x", OK, 0},
		{"default", "flushdb", OK, 0},
	} {
		a := args(tt.line)
		cmd := cat.Lookup(string(a[0]))
		if len(cmd.Subs) > 0 {
			cmd = cat.Lookup(string(a[0]) + "|" + string(a[1]))
		}
		got, pos := r.Get(tt.user).Profile().Check(cmd, a)
		if got != tt.want || pos != tt.pos {
			t.Errorf("%s: %s = %v at %d, want %v at %d", tt.user, tt.line, got, pos, tt.want, tt.pos)
		}
	}
	if !r.Default().Profile().Unrestricted() || r.Get("u").Profile().Unrestricted() {
		t.Error("only the default user should be unrestricted")
	}
}

func TestErrorMessage(t *testing.T) {
	for _, tt := range []struct {
		r       Reason
		verbose bool
		want    string
	}{
		{DeniedCommand, false, "User u has no permissions to run the 'get' command"},
		{DeniedKey, false, "No permissions to access a key"},
		{DeniedKey, true, "User u has no permissions to access the 'k' key"},
		{DeniedChannel, false, "No permissions to access a channel"},
		{DeniedChannel, true, "User u has no permissions to access the 'k' channel"},
	} {
		if got := ErrorMessage(tt.r, "u", "get", "k", tt.verbose); got != tt.want {
			t.Errorf("%v %v: %q", tt.r, tt.verbose, got)
		}
	}
}

func TestAuthenticate(t *testing.T) {
	r := NewRegistry(testCatalog())
	mustSet(t, r, "a", "on", ">secret", ">other")
	mustSet(t, r, "off", "off", ">secret")
	mustSet(t, r, "h", "on", "#"+HashPassword([]byte("hashed")))
	mustSet(t, r, "np", "on", "nopass")
	for _, tt := range []struct {
		user, pass string
		ok         bool
	}{
		{"a", "secret", true}, {"a", "other", true}, {"a", "secreT", false}, {"a", "", false},
		{"off", "secret", false}, {"h", "hashed", true}, {"h", "x", false},
		{"np", "anything", true}, {"nosuch", "x", false}, {"default", "x", true},
	} {
		if _, ok := r.Authenticate(tt.user, []byte(tt.pass)); ok != tt.ok {
			t.Errorf("%s/%s: %v", tt.user, tt.pass, ok)
		}
	}
	r.SetDefaultPassword("pw")
	if _, ok := r.Authenticate("default", []byte("x")); ok {
		t.Error("requirepass not applied")
	}
	if _, ok := r.Authenticate("default", []byte("pw")); !ok {
		t.Error("requirepass's password refused")
	}
	r.SetDefaultPassword("")
	if !r.Default().Profile().NoPass() {
		t.Error("an empty requirepass should give nopass")
	}
}

func TestPubsubDefault(t *testing.T) {
	r := NewRegistry(testCatalog())
	r.SetPubsubDefault(true)
	if got := mustSet(t, r, "a", "(~x)").Profile().Describe(); got != "off sanitize-payload &* -@all (~x &* -@all)" {
		t.Errorf("allchannels: %s", got)
	}
	if got := mustSet(t, r, "a", "reset").Profile().Describe(); got != "off sanitize-payload &* -@all" {
		t.Errorf("reset with allchannels: %s", got)
	}
}

func TestChannelsRevoked(t *testing.T) {
	r := NewRegistry(testCatalog())
	u, _, _ := r.SetUser("u", []string{"&a", "&b*"})
	for _, tt := range []struct {
		ops     []string
		revoked bool
	}{
		{[]string{"&c"}, false},
		{[]string{"resetchannels", "&a"}, true},
		{[]string{"allchannels"}, false},
		{[]string{"resetchannels", "&a", "&b*", "&c"}, true}, // from allchannels
	} {
		_, old, err := r.SetUser("u", tt.ops)
		if err != nil {
			t.Fatal(err)
		}
		if got := u.Profile().ChannelsRevoked(old); got != tt.revoked {
			t.Errorf("%q: revoked %v", tt.ops, got)
		}
	}
	p := u.Profile()
	if !p.KeepsSubscription("bx", false) || p.KeepsSubscription("z", false) || !p.KeepsSubscription("b*", true) || p.KeepsSubscription("b", true) {
		t.Error("KeepsSubscription")
	}
}

func TestDelUsers(t *testing.T) {
	r := NewRegistry(testCatalog())
	mustSet(t, r, "a")
	mustSet(t, r, "b")
	if _, err := r.DelUsers([]string{"a", "default"}); !errors.Is(err, ErrDeleteDefault) {
		t.Fatalf("deleting default: %v", err)
	}
	gone, err := r.DelUsers([]string{"a", "nosuch", "a"})
	if err != nil || len(gone) != 1 || !gone[0].Deleted() {
		t.Fatalf("DelUsers = %v, %v", gone, err)
	}
	if got := r.Names(); !slices.Equal(got, []string{"b", "default"}) {
		t.Errorf("Names = %q", got)
	}
}

// TestFileRoundTrip: ACL SAVE's text loads back into the same users.
func TestFileRoundTrip(t *testing.T) {
	r := NewRegistry(testCatalog())
	mustSet(t, r, "alice", "on", ">pw", "%R~r*", "~k", "&ch", "+@all", "-flushdb", "+select|0", "(+set ~s*)")
	mustSet(t, r, "bob", "off", "nopass", "skip-sanitize-payload", "allkeys", "allchannels", "-@all", "+config|get")
	mustSet(t, r, "default", "resetpass", ">x")
	path := filepath.Join(t.TempDir(), "users.acl")
	if err := r.SaveFile(path); err != nil {
		t.Fatal(err)
	}
	r2 := NewRegistry(testCatalog())
	old := mustSet(t, r2, "old")
	def := r2.Default()
	gone, err := r2.LoadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(gone) != 1 || gone[0] != old || !old.Deleted() {
		t.Errorf("replaced users: %v", gone)
	}
	if r2.Default() != def {
		t.Error("the default user must keep its identity")
	}
	if a, b := strings.Join(r.List(), "\n"), strings.Join(r2.List(), "\n"); a != b {
		t.Errorf("round trip:\n%s\n---\n%s", a, b)
	}
	data, _ := os.ReadFile(path)
	if !strings.HasPrefix(string(data), "user alice on sanitize-payload #") {
		t.Errorf("file: %s", data)
	}
}

func TestLoadFileErrors(t *testing.T) {
	for _, tt := range []struct{ text, want string }{
		{"user a on\n# comment\n", "f:2 should start with user keyword followed by the username. "},
		{"user a on\nuser\n", "f:2 should start with user keyword followed by the username. "},
		{"\n\nuser a bogus ~x\n", "f:3: Syntax error. "},
		{"user a +nosuch +nope\n", "f:1: Error in applying operation '+nosuch': Unknown command or category name in ACL. f:1: Error in applying operation '+nope': Unknown command or category name in ACL. "},
		{"user a on\nuser a off\n", "WARNING: Duplicate user 'a' found on line 2. "},
		{"user a (~x +get\n", "f:1: Unmatched parenthesis in selector definition."},
		{"user a ~* ~b\n", "f:1: " + ErrKeyAfterAll.Error() + ". "},
	} {
		r := NewRegistry(testCatalog())
		mustSet(t, r, "keep", "on")
		_, err := r.ParseFile(tt.text, "f")
		want := tt.want + "WARNING: ACL errors detected, no change to the previously active ACL rules was performed"
		if err == nil || err.Error() != want {
			t.Errorf("%q:\n got  %v\n want %s", tt.text, err, want)
		}
		path := filepath.Join(t.TempDir(), "f")
		if err := os.WriteFile(path, []byte(tt.text), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := r.LoadFile(path); err == nil {
			t.Errorf("%q loaded", tt.text)
		}
		if r.Get("keep") == nil {
			t.Errorf("%q: a failed load changed the users", tt.text)
		}
	}
	_, err := NewRegistry(testCatalog()).LoadFile("/nonexistent/acl")
	if err == nil || !strings.HasPrefix(err.Error(), "Error loading ACLs, opening file '/nonexistent/acl': No such file or directory") {
		t.Errorf("missing file: %v", err)
	}
}

func TestLoadConfigured(t *testing.T) {
	r := NewRegistry(testCatalog())
	err := r.LoadConfigured([][]string{{"a", "on", ">p", "+get", "~*"}, {"default", "on", ">dp", "+@all", "~*"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := r.Authenticate("default", []byte("dp")); !ok {
		t.Error("default user line not applied")
	}
	if got := r.Default().Profile().Describe(); strings.Contains(got, "&*") {
		t.Errorf("a default user line starts from reset: %s", got)
	}
	for _, tt := range []struct {
		lines [][]string
		want  string
	}{
		{[][]string{{"a", "bogus"}}, "Error in user declaration 'bogus': Syntax error"},
		{[][]string{{"a"}, {"a"}}, "Error in user declaration 'a': " + ErrDuplicateUser.Error()},
		{[][]string{{"a b"}}, "Spaces not allowed in ACL usernames"},
	} {
		err := NewRegistry(testCatalog()).LoadConfigured(tt.lines)
		if err == nil || err.Error() != tt.want {
			t.Errorf("%q: %v", tt.lines, err)
		}
	}
}

func TestLog(t *testing.T) {
	var l Log
	e := LogEntry{Reason: DeniedKey, Context: Toplevel, Object: "k", Username: "u", ClientInfo: "c1"}
	l.Add(e, 1000, 3)
	e.ClientInfo = "c2"
	l.Add(e, 2000, 3)
	if got := l.Entries(10); len(got) != 1 || got[0].Count != 2 || got[0].ClientInfo != "c2" || got[0].Created != 1000 || got[0].Updated != 2000 {
		t.Fatalf("grouping: %+v", got)
	}
	// Past the grouping window, a new entry.
	l.Add(e, 2000+61000, 3)
	other := e
	other.Object = "other"
	l.Add(other, 70000, 3)
	l.Add(e, 70001, 3) // groups with the second entry, which moves first
	got := l.Entries(10)
	if len(got) != 3 || got[0].ID != 1 || got[0].Count != 2 || got[1].Object != "other" || got[2].ID != 0 {
		t.Fatalf("entries: %+v", got)
	}
	for i := range 5 {
		o := e
		o.Object = strings.Repeat("x", i+1)
		l.Add(o, 80000, 3)
	}
	if got := l.Entries(10); len(got) != 3 || got[0].Object != "xxxxx" {
		t.Fatalf("max len: %+v", got)
	}
	if len(l.Entries(-1)) != 0 || len(l.Entries(1)) != 1 {
		t.Error("Entries count")
	}
	l.Reset()
	if len(l.Entries(10)) != 0 {
		t.Error("Reset")
	}
}

func TestGenPass(t *testing.T) {
	for bits, chars := range map[int]int{1: 1, 4: 1, 5: 2, 256: 64, 4096: 1024} {
		p, err := GenPass(bits)
		if err != nil || len(p) != chars || strings.Trim(p, "0123456789abcdef") != "" {
			t.Errorf("GenPass(%d) = %q, %v", bits, p, err)
		}
	}
	for _, bits := range []int{0, -1, 4097} {
		if _, err := GenPass(bits); err == nil {
			t.Errorf("GenPass(%d) accepted", bits)
		}
	}
}

func TestSplitArgs(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want []string
		ok   bool
	}{
		{"a b  c", []string{"a", "b", "c"}, true},
		{`"a b" 'c d'`, []string{"a b", "c d"}, true},
		{`"\x41\n"`, []string{"A\n"}, true},
		{`"a`, nil, false},
		{`"a"b`, nil, false},
		{"a\x00b", []string{"a"}, true},
		{"", nil, true},
	} {
		got, ok := splitArgs(tt.in)
		if ok != tt.ok || !slices.Equal(got, tt.want) {
			t.Errorf("splitArgs(%q) = %q, %v", tt.in, got, ok)
		}
	}
}

// TestRedisNames: rules may name every command and subcommand of Redis 7.2,
// implemented or not, and are shown back as Redis 7.2 shows them (its ACL
// GETUSER and ACL LIST keep the rules in the order given; 7.0 derived them
// from its bitmap). Names Redis does not know stay errors, with its texts.
func TestRedisNames(t *testing.T) {
	for _, tt := range []struct {
		ops  []string
		want string // the rules ACL LIST shows, or the error
	}{
		{[]string{"+@all", "-debug"}, "+@all -debug"},
		{[]string{"+@all", "-module", "-lolwut", "-wait", "-config|set"}, "+@all -module -lolwut -wait -config|set"},
		{[]string{"+cluster|info", "+client|kill", "-config|set"}, "-@all +cluster|info +client|kill -config|set"},
		{[]string{"+cluster|info", "+cluster|nodes", "-cluster"}, "-@all -cluster"},
		{[]string{"+cluster", "-cluster|reset"}, "-@all +cluster -cluster|reset"},
		{[]string{"+DEBUG", "-CLUSTER|INFO"}, "-@all +debug -cluster|info"},
		{[]string{"+debug|sleep", "+lolwut|5"}, "-@all +debug|sleep +lolwut|5"},
		{[]string{"+@all", "-script|debug", "-asking", "-readonly", "-readwrite"}, "+@all -script|debug -asking -readonly -readwrite"},
		// Redis 7.2's additions.
		{[]string{"+waitaof", "+client|no-touch", "+client|setinfo", "+cluster|myshardid"}, "-@all +waitaof +client|no-touch +client|setinfo +cluster|myshardid"},
		{[]string{"-foo"}, "Error in ACL SETUSER modifier '-foo': Unknown command or category name in ACL"},
		{[]string{"+foo"}, "Error in ACL SETUSER modifier '+foo': Unknown command or category name in ACL"},
		{[]string{"+cluster|nosuch"}, "Error in ACL SETUSER modifier '+cluster|nosuch': Unknown command or category name in ACL"},
		{[]string{"+module|nosuch"}, "Error in ACL SETUSER modifier '+module|nosuch': Unknown command or category name in ACL"},
		{[]string{"+cluster|info|x"}, "Error in ACL SETUSER modifier '+cluster|info|x': Allowing first-arg of a subcommand is not supported"},
		{[]string{"-cluster|info|x"}, "Error in ACL SETUSER modifier '-cluster|info|x': Unknown command or category name in ACL"},
		{[]string{"-debug|sleep"}, "Error in ACL SETUSER modifier '-debug|sleep': Unknown command or category name in ACL"},
		{[]string{"+debug|sleep|x"}, "Error in ACL SETUSER modifier '+debug|sleep|x': Unknown command or category name in ACL"},
	} {
		r := NewRegistry(testCatalog())
		u, _, err := r.SetUser("u", tt.ops)
		got := ""
		if err != nil {
			got = err.Error()
		} else {
			got = u.Profile().Selectors()[0].Commands
		}
		if got != tt.want {
			t.Errorf("%q:\n got  %s\n want %s", tt.ops, got, tt.want)
		}
	}
	// Every name of the list is known, and only the implemented ones have a
	// spec.
	cat := testCatalog()
	for _, name := range strings.Split(redisCommandsText, "\n") {
		if name == "" || name[0] == '#' {
			continue
		}
		cmd := cat.Lookup(name)
		if cmd == nil {
			t.Errorf("%s: not in the catalog", name)
			continue
		}
		if (cmd.Spec != nil) != (name == "get" || name == "set" || name == "append" || name == "hget" || name == "flushdb" ||
			name == "select" || name == "auth" || name == "publish" || name == "subscribe" || name == "psubscribe" ||
			name == "unsubscribe" || name == "config" || name == "config|get" || name == "config|set") {
			t.Errorf("%s: spec %v", name, cmd.Spec)
		}
	}
	if cat.Len() != 370 {
		t.Errorf("catalog of %d commands, want Redis 7.2's 370", cat.Len())
	}
	// Commands Cairn lacks are in no category: ACL CAT lists what runs.
	if got := cat.InCategory(command.CatDangerous); !slices.Equal(got, []string{"config|get", "config|set", "flushdb"}) {
		t.Errorf("@dangerous lists %q", got)
	}
}

// TestRuleOnFutureCommand: a rule naming a command Cairn does not implement
// is kept by name, so the same rules, loaded by a Cairn that implements the
// command, govern it.
func TestRuleOnFutureCommand(t *testing.T) {
	path := filepath.Join(t.TempDir(), "users.acl")
	old := NewRegistry(testCatalog())
	mustSet(t, old, "ops", "on", "nopass", "~*", "+@all", "-debug", "-config|set")
	mustSet(t, old, "dbg", "on", "nopass", "-@all", "+debug|sleep", "+cluster|info")
	if err := old.SaveFile(path); err != nil {
		t.Fatal(err)
	}
	// A catalog where DEBUG and CLUSTER exist.
	specs := []*command.Spec{
		{Name: "get", Arity: 2, Flags: command.ReadOnly, ACL: command.CatString,
			KeySpecs: []command.KeySpec{{Flags: command.KeyRO | command.KeyAccess, Begin: command.IndexSearch(1), Find: command.RangeKeys(0, 1, 0)}}},
		{Name: "debug", Arity: -2, Flags: command.Admin, ACL: command.CatDangerous},
		{Name: "cluster", Arity: -2, Subcommands: []*command.Spec{
			{Name: "cluster|info", Arity: 2},
			{Name: "cluster|nodes", Arity: 2},
		}},
	}
	cat := NewCatalog(specs)
	r := NewRegistry(cat)
	if _, err := r.LoadFile(path); err != nil {
		t.Fatal(err)
	}
	if a, b := strings.Join(old.List(), "\n"), strings.Join(r.List(), "\n"); a != b {
		t.Errorf("the rules changed:\n%s\n---\n%s", a, b)
	}
	for _, tt := range []struct {
		user, line string
		want       Reason
	}{
		{"ops", "get k", OK},
		{"ops", "debug sleep 0", DeniedCommand},
		{"ops", "cluster info", OK},
		{"dbg", "debug sleep 0", OK},
		{"dbg", "debug object k", DeniedCommand},
		{"dbg", "cluster info", OK},
		{"dbg", "cluster nodes", DeniedCommand},
		{"dbg", "get k", DeniedCommand},
	} {
		a := args(tt.line)
		cmd := cat.Lookup(string(a[0]))
		if len(cmd.Subs) > 0 {
			cmd = cat.Lookup(string(a[0]) + "|" + string(a[1]))
		}
		if got, _ := r.Get(tt.user).Profile().Check(cmd, a); got != tt.want {
			t.Errorf("%s: %s = %v, want %v", tt.user, tt.line, got, tt.want)
		}
	}
}
