package command

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

func names(specs []*Spec) []string {
	out := make([]string, len(specs))
	for i, s := range specs {
		out[i] = s.Name
	}
	return out
}

func TestLookup(t *testing.T) {
	table := testTable()
	tests := []struct {
		name string
		want string // "" for nil
	}{
		{"get", "get"},
		{"GET", "get"},
		{"gEt", "get"},
		{"ZunionStore", "zunionstore"},
		{"get ", ""},
		{"ge", ""},
		{"", ""},
		{"config|get", ""},
		{strings.Repeat("g", maxNameLen+1), ""},
		{"\xc7et", ""},
		{"\u017Fet", ""},
		// The whole name counts, past a NUL byte too (see Lookup).
		{"get\x00", ""},
		{"GET\x00x", ""},
	}
	for _, tt := range tests {
		got := table.Lookup([]byte(tt.name))
		if (got == nil && tt.want != "") || (got != nil && got.Name != tt.want) {
			t.Errorf("Lookup(%q) = %v, want %q", tt.name, got, tt.want)
		}
	}
}

func TestLookupSubAndFull(t *testing.T) {
	table := testTable()
	config := table.Lookup([]byte("config"))
	get := table.Lookup([]byte("get"))
	tests := []struct {
		name   string
		lookup func() *Spec
		want   string
	}{
		{"sub", func() *Spec { return table.LookupSub(config, []byte("get")) }, "config|get"},
		{"sub any case", func() *Spec { return table.LookupSub(config, []byte("HeLp")) }, "config|help"},
		{"unknown sub", func() *Spec { return table.LookupSub(config, []byte("set")) }, ""},
		{"not a container", func() *Spec { return table.LookupSub(get, []byte("get")) }, ""},
		{"nil parent", func() *Spec { return table.LookupSub(nil, []byte("get")) }, ""},
		{"sub too long", func() *Spec { return table.LookupSub(config, []byte(strings.Repeat("x", maxNameLen))) }, ""},
		{"full command", func() *Spec { return table.LookupFull([]byte("GET")) }, "get"},
		{"full sub", func() *Spec { return table.LookupFull([]byte("CONFIG|GET")) }, "config|get"},
		{"full sub of non-container", func() *Spec { return table.LookupFull([]byte("get|x")) }, ""},
		{"full too deep", func() *Spec { return table.LookupFull([]byte("config|get|x")) }, ""},
		{"full empty sub", func() *Spec { return table.LookupFull([]byte("config|")) }, ""},
		{"full no parent", func() *Spec { return table.LookupFull([]byte("|get")) }, ""},
	}
	for _, tt := range tests {
		got := tt.lookup()
		if (got == nil && tt.want != "") || (got != nil && got.Name != tt.want) {
			t.Errorf("%s: got %v, want %q", tt.name, got, tt.want)
		}
	}
}

func TestLookupDoesNotAllocate(t *testing.T) {
	table := testTable()
	config := table.Lookup([]byte("config"))
	upper, sub, full, long := []byte("ZUNIONSTORE"), []byte("GET"), []byte("Config|Help"), []byte(strings.Repeat("x", 100))
	tests := []struct {
		name string
		fn   func()
	}{
		{"Lookup", func() { _ = table.Lookup(upper) }},
		{"Lookup too long", func() { _ = table.Lookup(long) }},
		{"LookupSub", func() { _ = table.LookupSub(config, sub) }},
		{"LookupFull", func() { _ = table.LookupFull(full) }},
	}
	for _, tt := range tests {
		if allocs := testing.AllocsPerRun(100, tt.fn); allocs != 0 {
			t.Errorf("%s allocates %v times per call", tt.name, allocs)
		}
	}
}

func TestAllAndLen(t *testing.T) {
	table := testTable()
	want := []string{
		"config", "eval", "get", "getset", "migrate", "mset", "pfdebug", "ping", "set",
		"sort", "spublish", "xread", "zunionstore",
	}
	all := table.All()
	if got := names(all); !slices.Equal(got, want) {
		t.Errorf("All() = %v, want %v", got, want)
	}
	if table.Len() != len(want) {
		t.Errorf("Len() = %d, want %d", table.Len(), len(want))
	}
	all[0] = nil
	if table.All()[0] == nil {
		t.Error("All() exposes the table's own slice")
	}
	if empty := NewTable(); empty.Len() != 0 || len(empty.All()) != 0 {
		t.Errorf("empty table has %d commands", empty.Len())
	}
}

func TestAddPanics(t *testing.T) {
	validKey := []KeySpec{{Flags: KeyRO, Begin: IndexSearch(1), Find: RangeKeys(0, 1, 0)}}
	tests := []struct {
		name string
		spec *Spec
		want string
	}{
		{"nil", nil, "Add(nil)"},
		{"duplicate", getSpec(), "registered twice"},
		{"empty name", &Spec{Arity: 1}, "empty name"},
		{"upper case", &Spec{Name: "Foo", Arity: 1}, "lower case"},
		{"pipe in top-level name", &Spec{Name: "a|b", Arity: 1}, "cannot contain"},
		{"too long", &Spec{Name: strings.Repeat("x", maxNameLen+1), Arity: 1}, "longer than"},
		{"arity 0", &Spec{Name: "x", Arity: 0}, "arity 0"},
		{"legacy range without step", &Spec{Name: "x", Arity: 2, First: 1, Last: 1}, "without a step"},
		{"unset key spec", &Spec{Name: "x", Arity: 2, KeySpecs: []KeySpec{{Flags: KeyRO}}}, "begin_search not set"},
		{"unset find", &Spec{Name: "x", Arity: 2, KeySpecs: []KeySpec{{Begin: IndexSearch(1)}}}, "find_keys not set"},
		{"index 0", &Spec{Name: "x", Arity: 2, KeySpecs: []KeySpec{{Begin: IndexSearch(0), Find: RangeKeys(0, 1, 0)}}}, "below 1"},
		{"step 0", &Spec{Name: "x", Arity: 2, KeySpecs: []KeySpec{{Begin: IndexSearch(1), Find: RangeKeys(0, 0, 0)}}}, "keystep"},
		{"limit without -1", &Spec{Name: "x", Arity: 2, KeySpecs: []KeySpec{{Begin: IndexSearch(1), Find: RangeKeys(-2, 1, 2)}}}, "limit requires"},
		{"keyword startfrom 0", &Spec{Name: "x", Arity: 2, KeySpecs: []KeySpec{{Begin: KeywordSearch("K", 0), Find: RangeKeys(0, 1, 0)}}}, "startfrom"},
		{"keynum firstkey 0", &Spec{Name: "x", Arity: 2, KeySpecs: []KeySpec{{Begin: IndexSearch(1), Find: KeyNumKeys(0, 0, 1)}}}, "keynum"},
		{"key arg without spec", &Spec{Name: "x", Arity: 2, Args: []Arg{{Name: "key", Type: ArgKey}}}, "out of range"},
		{"nested key arg out of range", &Spec{Name: "x", Arity: 2, KeySpecs: validKey, Args: []Arg{
			{Name: "b", Type: ArgBlock, Args: []Arg{{Name: "k", Type: ArgKey, KeySpecIndex: 1}}},
		}}, "out of range"},
		{"argument without type", &Spec{Name: "x", Arity: 2, Args: []Arg{{Name: "a"}}}, "required"},
		{"sub misnamed", &Spec{Name: "x", Arity: -2, Subcommands: []*Spec{{Name: "y|get", Arity: 2}}}, "must be named"},
		{"sub without name", &Spec{Name: "x", Arity: -2, Subcommands: []*Spec{{Name: "x|", Arity: 2}}}, "must be named"},
		{"sub nested", &Spec{Name: "x", Arity: -2, Subcommands: []*Spec{{Name: "x|a", Arity: -2, Subcommands: []*Spec{{Name: "x|a|b", Arity: 2}}}}}, "one level"},
		{"sub twice", &Spec{Name: "x", Arity: -2, Subcommands: []*Spec{{Name: "x|a", Arity: 2}, {Name: "x|a", Arity: 2}}}, "registered twice"},
		{"sub bad arity", &Spec{Name: "x", Arity: -2, Subcommands: []*Spec{{Name: "x|a"}}}, "arity 0"},
		{"sub nil", &Spec{Name: "x", Arity: -2, Subcommands: []*Spec{nil}}, "nil subcommand"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			table := testTable()
			before := table.Len()
			defer func() {
				r := recover()
				msg, _ := r.(string)
				if !strings.Contains(msg, tt.want) {
					t.Fatalf("panic %v, want one mentioning %q", r, tt.want)
				}
				if table.Len() != before || table.LookupFull([]byte("x|a")) != nil {
					t.Error("a rejected spec was registered")
				}
			}()
			table.Add(tt.spec)
		})
	}
}

func TestFilterBy(t *testing.T) {
	table := testTable()
	tests := []struct {
		kind, arg string
		want      []string
		wantErr   error
	}{
		{"aclcat", "string", []string{"get", "getset", "mset", "set"}, nil},
		{"ACLCAT", "STRING", []string{"get", "getset", "mset", "set"}, nil},
		{"aclcat", "@string", nil, nil},
		{"aclcat", "nosuch", nil, nil},
		{"aclcat", "admin", []string{"config|get", "pfdebug"}, nil},
		{"aclcat", "slow", []string{
			"config", "config|get", "config|help", "eval", "migrate", "mset", "pfdebug",
			"set", "sort", "xread", "zunionstore",
		}, nil},
		{"pattern", "config|*", []string{"config|get", "config|help"}, nil},
		{"Pattern", "CONFIG", []string{"config"}, nil},
		{"pattern", "*et", []string{"config|get", "get", "getset", "mset", "set"}, nil},
		{"pattern", "g?t", []string{"get"}, nil},
		{"pattern", "nomatch", nil, nil},
		{"module", "anything", nil, nil},
		{"foo", "bar", nil, ErrSyntax},
		// kind and the category end at a NUL byte, as strcasecmp reads
		// them; the pattern does not.
		{"ACLCAT\x00junk", "string\x00junk", []string{"get", "getset", "mset", "set"}, nil},
		{"pattern\x00", "g?t", []string{"get"}, nil},
		{"pattern", "g?t\x00", nil, nil},
		{"aclcat", "\u017Ftring", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.kind+" "+tt.arg, func(t *testing.T) {
			got, err := table.FilterBy(tt.kind, tt.arg)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("error %v, want %v", err, tt.wantErr)
			}
			if !slices.Equal(names(got), tt.want) && !(len(got) == 0 && len(tt.want) == 0) {
				t.Errorf("got %v, want %v", names(got), tt.want)
			}
		})
	}
}

func TestFilterByPatternAll(t *testing.T) {
	table := testTable()
	got, err := table.FilterBy("pattern", "*")
	if err != nil {
		t.Fatal(err)
	}
	want := 0
	for _, s := range table.All() {
		want += 1 + len(s.Subcommands)
	}
	if len(got) != want {
		t.Errorf("pattern * lists %d commands, want %d", len(got), want)
	}
}
