package acl

import (
	"strings"
	"testing"
)

// FuzzSetUser applies arbitrary rules: no panic, and a user that took them
// describes itself in rules that rebuild the same user.
func FuzzSetUser(f *testing.F) {
	for _, s := range []string{
		"on >pw ~foo* +get +set &ch*",
		"%R~r* %W~w* %RW~rw* (+set ~s*) +config|get -config|get +select|0 -@string",
		"allcommands -@dangerous +flushdb",
		"(~a +get ( ) reset clearselectors",
		"#" + strings.Repeat("a", 64) + " !" + strings.Repeat("a", 64),
		"% %R %~ ~ & + - +@ -@ +| +get| +config|x|y",
	} {
		f.Add(s)
	}
	cat := testCatalog()
	f.Fuzz(func(t *testing.T, line string) {
		r := NewRegistry(cat)
		u, _, err := r.SetUser("u", strings.Split(line, " "))
		if err != nil {
			return
		}
		desc := u.Profile().Describe()
		if strings.ContainsAny(desc, "\"'\\") || hasParenPattern(u.Profile()) {
			// Redis reads a selector's inside with quoting, and takes a
			// word ending in ')' for a selector's end: such patterns do
			// not survive a round trip there either.
			return
		}
		r2 := NewRegistry(cat)
		// As the aclfile is read: split on spaces, selectors merged.
		u2, _, err := r2.SetUser("u", strings.Split(desc, " "))
		if err != nil {
			t.Fatalf("description %q of %q refused: %v", desc, line, err)
		}
		if got := u2.Profile().Describe(); got != desc {
			t.Fatalf("%q: described %q, rebuilt as %q", line, desc, got)
		}
		for _, l := range []string{"get k", "set k v", "config get x", "publish ch m", "psubscribe p*"} {
			a := args(l)
			cmd := cat.Lookup(string(a[0]))
			if len(cmd.Subs) > 0 {
				cmd = cat.Lookup(string(a[0]) + "|" + string(a[1]))
			}
			r1, _ := u.Profile().Check(cmd, a)
			r2, _ := u2.Profile().Check(cmd, a)
			if r1 != r2 {
				t.Fatalf("%q: %s is %v, rebuilt %v", line, l, r1, r2)
			}
		}
	})
}

// FuzzParseFile parses arbitrary aclfile text: no panic, and a file that
// loads saves as text that loads to the same users.
func FuzzParseFile(f *testing.F) {
	for _, s := range []string{
		"user default on nopass ~* &* +@all\nuser a on #" + strings.Repeat("b", 64) + " ~x +get\n",
		"user a (~x +get) (&c)\n\n",
		"user\nuser a bogus\n# c\n",
		"user a on\nuser a off\n",
	} {
		f.Add(s)
	}
	cat := testCatalog()
	f.Fuzz(func(t *testing.T, text string) {
		r := NewRegistry(cat)
		users, err := r.ParseFile(text, "f")
		if err != nil {
			return
		}
		var b strings.Builder
		for _, p := range users {
			if hasParenPattern(p) {
				return // see FuzzSetUser
			}
		}
		for n, p := range users {
			if strings.ContainsAny(n, " \t\r\n\x00") {
				t.Fatalf("user name %q accepted", n)
			}
			b.WriteString("user " + n + " " + p.Describe() + "\n")
		}
		again, err := r.ParseFile(b.String(), "f")
		if err != nil {
			t.Fatalf("saved text %q does not load: %v", b.String(), err)
		}
		for n, p := range users {
			if again[n] == nil || again[n].Describe() != p.Describe() {
				t.Fatalf("user %s changed in a round trip", n)
			}
		}
	})
}

func hasParenPattern(p *Profile) bool {
	for _, s := range p.selectors {
		for _, k := range s.keys {
			if strings.ContainsAny(k.pattern, "()") {
				return true
			}
		}
		for _, c := range s.channels {
			if strings.ContainsAny(c, "()") {
				return true
			}
		}
	}
	return false
}
