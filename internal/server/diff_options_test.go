package server

import (
	"strconv"
	"strings"
	"testing"
)

// Option and subcommand names spelled the ways Redis reads differently from
// Go's string functions. Redis compares them with strcasecmp, so an option
// ends at its first NUL byte ("LIMIT\x00junk" is LIMIT) and only ASCII
// letters fold: the long s (ſ, U+017F) and the Kelvin sign (K, U+212A) are
// no letters of an option, though strings.EqualFold folds them to s and k,
// nor is the dotless i (ı, U+0131), though strings.ToUpper makes it I.
// Command names are looked up whole instead (see command.Table.Lookup).

// optionCases are sent to Redis and Cairn in order, every reply compared.
var optionCases = [][]string{
	{"HSET", "h", "f", "v"},
	{"SADD", "s", "a", "b", "c"},
	{"SADD", "t", "b", "c", "d"},

	// HRANDFIELD's WITHVALUES; a one-field hash makes the reply certain.
	{"HRANDFIELD", "h", "1", "WITHVALUES\x00junk"},
	{"HRANDFIELD", "h", "-2", "wItHvAlUeS"},
	{"HRANDFIELD", "h", "1", "W\u0131THVALUES"},
	{"HRANDFIELD", "h", "1", "WITHVALUE\u017F"},
	{"HRANDFIELD", "h", "1", "WITHVALUES\x01"},

	// SINTERCARD's LIMIT.
	{"SINTERCARD", "2", "s", "t", "LIMIT\x00junk", "1"},
	{"SINTERCARD", "2", "s", "t", "lImIt", "1"},
	{"SINTERCARD", "2", "s", "t", "L\u0131MIT", "1"},
	{"SINTERCARD", "1", "s", "\x00LIMIT", "1"},

	// SET's GET, as COMMAND GETKEYSANDFLAGS reads it (setGetKeys): any
	// argument after the value. G, E and T have no Unicode twins.
	{"COMMAND", "GETKEYSANDFLAGS", "SET", "k", "v", "GET\x00junk"},
	{"COMMAND", "GETKEYSANDFLAGS", "SET", "k", "v", "EX", "10", "gEt"},
	{"COMMAND", "GETKEYSANDFLAGS", "SET", "k", "v", "GETS"},

	// COMMAND LIST FILTERBY's kind and category end at a NUL; its pattern
	// is matched whole. (The lists come in dict order in Redis: see
	// TestDiffOptions.)
	{"COMMAND", "LIST", "FILTERBY", "aclcat", "\u017Ftring"},
	{"COMMAND", "LIST", "FILTERBY", "PATTERN", "sinter*\x00"},
	{"COMMAND", "LIST", "FILTERBY", "PATTERN ", "sinter*"},

	// Command and subcommand names: any ASCII case, no Unicode folding.
	{"gEt", "k"},
	{"\u017Fet", "k", "v"},
	{"\u212Aeys", "*"},
	{"CLIENT", "gEtNaMe"},
	{"CLIENT", "\u017Fetname", "x"},
}

// unorderedOptionCases reply with arrays in no defined order.
var unorderedOptionCases = [][]string{
	{"COMMAND", "LIST", "FILTERBY", "ACLCAT\x00junk", "string\x00junk"},
	{"COMMAND", "LIST", "FILTERBY", "PATTERN\x00", "sinter*"},
}

func TestDiffOptions(t *testing.T) {
	d := newDiffRun(t)
	for _, args := range optionCases {
		d.same(args...)
	}
	for _, args := range unorderedOptionCases {
		d.sameUnordered(false, args...)
	}

	// A command or subcommand name with a NUL byte in it is unknown: the
	// whole name counts. Redis hashes the whole name, with a seed drawn
	// per process, then compares candidates in the bucket with strcasecmp,
	// which stops at the NUL; so in about one run in the table's size the
	// name shares the known one's bucket and Redis runs that command.
	// Cairn must give the usual answer, which Redis gives otherwise.
	d.sameNULNames([]nulName{
		{[]string{"GET\x00x", "k"}, []string{"GET", "k"}, "-ERR unknown command 'GET', with args beginning with: 'k' \r\n"},
		{[]string{"get\x00", "k"}, []string{"get", "k"}, "-ERR unknown command 'get', with args beginning with: 'k' \r\n"},
		{[]string{"CLIENT", "GETNAME\x00x"}, []string{"CLIENT", "GETNAME"}, "-ERR unknown subcommand 'GETNAME'. Try CLIENT HELP.\r\n"},
	})
}

// nulName is a command whose name (a command's, a subcommand's, a
// setting's) has a NUL byte in it, which Redis looks up whole in a dict
// hashed over the whole name: args, the name known without the NUL, and
// want, the answer of a name that is not known.
type nulName struct {
	args, known []string
	want        string
}

// sameNULNames runs each case's known command, compared, then its args:
// Cairn must answer want. Redis answers want too, but for the one run in
// the dict's size where its hash seed puts the name in the known one's
// bucket: there strcasecmp, which stops at the NUL, finds the known name
// and Redis answers as it did to the known command.
func (d *diffRun) sameNULNames(cases []nulName) {
	d.t.Helper()
	for _, u := range cases {
		known := d.same(u.known...)
		r, c := d.send(u.args...)
		if string(c) != u.want {
			d.t.Errorf("%s: Cairn answered %q, want %q", quoteCommand(u.args), c, u.want)
		}
		switch {
		case string(r) == u.want:
		case string(r) == string(known):
			d.t.Logf("%s: this redis-server's hash seed put the name in %s's bucket", quoteCommand(u.args), quoteCommand(u.known))
		default:
			d.t.Errorf("%s: redis-server answered %q, neither %q nor %q", quoteCommand(u.args), r, u.want, known)
		}
	}
}

// TestOptionNamesHashFieldExpiry checks the option names of the hash field
// expiry commands, which Redis 7.0.15 (the server the differential tests
// run) lacks: the replies are those of Redis 8's t_hash.c, which reads
// every one of these options with strcasecmp and quotes an unknown one
// with %s.
func TestOptionNamesHashFieldExpiry(t *testing.T) {
	const (
		noFields = "-ERR Mandatory argument FIELDS is missing or not at the right position\r\n"
		one      = "*1\r\n:1\r\n"
		zero     = "*1\r\n:0\r\n"
		value    = "*1\r\n$1\r\nv\r\n"
	)
	ts := startServer(t)
	rc := ts.wire(t)
	// Each case runs on its own hash "h" holding f = v, with no TTL.
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"HEXPIRE", "h", "100", "NX\x00junk", "FIELDS", "1", "f"}, one},
		{[]string{"HEXPIRE", "h", "100", "nX", "FIELDS", "1", "f"}, one},
		{[]string{"HEXPIRE", "h", "100", "XX\x00", "FIELDS", "1", "f"}, zero},
		{[]string{"HPEXPIRE", "h", "100000", "gt\x00x", "FIELDS", "1", "f"}, zero},
		{[]string{"HPEXPIRE", "h", "100000", "Lt", "FIELDS", "1", "f"}, one},
		{[]string{"HEXPIRE", "h", "100", "FIELDS\x00junk", "1", "f"}, one},
		{[]string{"HEXPIRE", "h", "100", "fields", "1", "f"}, one},
		{[]string{"HEXPIRE", "h", "100", "FIELD\u017F", "1", "f"}, noFields},
		{[]string{"HEXPIRE", "h", "100", "F\u0131ELDS", "1", "f"}, noFields},
		{[]string{"HEXPIRE", "h", "100", "NX", "FIELD\u017F", "1", "f"}, noFields},
		{[]string{"HTTL", "h", "fields\x00", "1", "f"}, "*1\r\n:-1\r\n"},
		{[]string{"HPERSIST", "h", "FIELD\u017F", "1", "f"}, noFields},
		{[]string{"HGETDEL", "h", "FIELDS\x00x", "1", "f"}, value},
		{[]string{"HGETDEL", "h", "F\u0131ELDS", "1", "f"}, noFields},
		{[]string{"HGETEX", "h", "EX\x00junk", "100", "FIELDS", "1", "f"}, value},
		{[]string{"HGETEX", "h", "pXaT\x00", "4102444800000", "FIELDS", "1", "f"}, value},
		{[]string{"HGETEX", "h", "pErSiSt", "FIELDS", "1", "f"}, value},
		{[]string{"HGETEX", "h", "PER\u017FIST", "FIELDS", "1", "f"}, noFields},
		{[]string{"HSETEX", "h", "FNX\x00junk", "FIELDS", "1", "f", "w"}, ":0\r\n"},
		{[]string{"HSETEX", "h", "fXx", "FIELDS", "1", "f", "w"}, ":1\r\n"},
		{[]string{"HSETEX", "h", "KEEPTTL\x00", "FIELDS", "1", "f", "w"}, ":1\r\n"},
		{[]string{"HSETEX", "h", "px\x00", "100000", "FIELDS", "1", "f", "w"}, ":1\r\n"},
		{[]string{"HSETEX", "h", "FIELDS\x00junk", "1", "f", "w"}, ":1\r\n"},
		{[]string{"HSETEX", "h", "FNX", "fxx\x00", "FIELDS", "1", "f", "w"}, "-ERR Only one of FXX or FNX arguments can be specified\r\n"},
		{[]string{"HSETEX", "h", "EX", "100", "ex\x00", "100", "FIELDS", "1", "f", "w"}, "-ERR Only one of EX, PX, EXAT, PXAT or KEEPTTL arguments can be specified\r\n"},
		{[]string{"HSETEX", "h", "\u212AEEPTTL", "FIELDS", "1", "f", "w"}, "-ERR unknown argument: \u212AEEPTTL\r\n"},
		{[]string{"HSETEX", "h", "FIELD\u017F", "1", "f", "w"}, "-ERR unknown argument: FIELD\u017F\r\n"},
		{[]string{"HSETEX", "h", "BAD\x00junk", "FIELDS", "1", "f", "w"}, "-ERR unknown argument: BAD\r\n"},
	}
	for _, tt := range tests {
		for _, setup := range [][]string{{"DEL", "h"}, {"HSET", "h", "f", "v"}} {
			rc.do(setup...)
		}
		if got := rc.do(tt.args...); got != tt.want {
			t.Errorf("%s = %q, want %q", quoteCommand(tt.args), got, tt.want)
		}
	}
	// The options took effect, not just parsed: EX set a TTL, PERSIST
	// took it away.
	rc.do("HGETEX", "h", "Ex\x00", "100", "FIELDS", "1", "f")
	got := rc.do("HTTL", "h", "FIELDS", "1", "f")
	if ttl, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(got, "*1\r\n:"), "\r\n")); err != nil || ttl < 1 || ttl > 100 {
		t.Errorf("HTTL after HGETEX EX 100 = %q, want 1 to 100", got)
	}
	rc.do("HGETEX", "h", "persist\x00", "FIELDS", "1", "f")
	if got := rc.do("HTTL", "h", "FIELDS", "1", "f"); got != "*1\r\n:-1\r\n" {
		t.Errorf("HTTL after HGETEX PERSIST = %q, want -1", got)
	}
}

func TestOptionNameReading(t *testing.T) {
	tests := []struct {
		arg, name string // name: the argument as optName reads it
	}{
		{"nx", "NX"},
		{"Nx\x00junk", "NX"},
		{"\x00NX", ""},
		{"", ""},
		{"withvalues", "WITHVALUES"},
		{"\u017Fync", "\u017FYNC"},
		{"\u0131nfo", "\u0131NFO"},
		{"\u212Aeepttl", "\u212AEEPTTL"},
		{"a-b_c1\xff", "A-B_C1\xff"},
	}
	for _, tt := range tests {
		arg := []byte(tt.arg)
		if got := optName(arg); got != tt.name {
			t.Errorf("optName(%q) = %q, want %q", tt.arg, got, tt.name)
		}
		if !optIs(arg, tt.name) {
			t.Errorf("optIs(%q, %q) = false", tt.arg, tt.name)
		}
		if optIs(arg, tt.name+"X") || (tt.name != "" && optIs(arg, tt.name[1:])) {
			t.Errorf("optIs(%q) matched a longer or shorter name than %q", tt.arg, tt.name)
		}
	}
	for arg, want := range map[string]string{"BAD\x00junk": "BAD", "\x00x": "", "plain": "plain", "\u017F": "\u017F"} {
		if got := cstr(arg); got != want {
			t.Errorf("cstr(%q) = %q, want %q", arg, got, want)
		}
	}
	arg := []byte("keepttl\x00junk")
	if n := testing.AllocsPerRun(100, func() { optIs(arg, "KEEPTTL") }); n != 0 {
		t.Errorf("optIs allocates %v times per call", n)
	}
}
