package command

import (
	"errors"
	"fmt"
	"slices"
	"testing"
)

// lmpopSpec is LMPOP as Redis 7.0 describes it: a count at 1, the keys,
// then LEFT or RIGHT.
func lmpopSpec() *Spec {
	return &Spec{
		Name: "lmpop", Arity: -4, Flags: Write, ACL: CatList,
		KeySpecs: []KeySpec{{Flags: KeyRW | KeyAccess | KeyDelete, Begin: IndexSearch(1), Find: KeyNumKeys(0, 1, 1)}},
		KeysFunc: NumKeysFunc(0, 1, 2, 1),
	}
}

// TestGetKeysNumKeys checks COMMAND GETKEYS on the commands whose keys
// follow a count, against redis-server 7.0.15's answers for counts of every
// odd shape. Redis reads the count twice: its key specs take it with
// string2ll and then as a C int (so 4294967298 is 2), and when they fail
// its getkeys_proc takes it with atoi (spaces, a sign, trailing garbage)
// and lists the destination last. nil is "Invalid arguments specified for
// command"; EVAL's keys are optional, so it answers an empty list instead.
func TestGetKeysNumKeys(t *testing.T) {
	tb := NewTable()
	for _, s := range []*Spec{zunionstoreSpec(), lmpopSpec(), evalSpec()} {
		tb.Add(s)
	}
	for _, tt := range []struct {
		count                    string
		zunionstore, lmpop, eval []int
	}{
		{"02", []int{3, 4, 1}, []int{2, 3}, []int{3, 4}},
		{"+2", []int{3, 4, 1}, []int{2, 3}, []int{3, 4}},
		{" 2", []int{3, 4, 1}, []int{2, 3}, []int{3, 4}},
		{"2 ", []int{3, 4, 1}, []int{2, 3}, []int{3, 4}},
		{"\t2", []int{3, 4, 1}, []int{2, 3}, []int{3, 4}},
		{"\n\v\f\r 2x", []int{3, 4, 1}, []int{2, 3}, []int{3, 4}},
		{"-1", nil, nil, []int{}},
		{"0", nil, nil, []int{}},
		{"99999999999999999999", nil, nil, []int{}},
		{"abc", nil, nil, []int{}},
		{"3", nil, []int{2, 3, 4}, []int{}},
		{"2", []int{1, 3, 4}, []int{2, 3}, []int{3, 4}},
		{"1", []int{1, 3}, []int{2}, []int{3}},
		{"", nil, nil, []int{}},
		{"2abc", []int{3, 4, 1}, []int{2, 3}, []int{3, 4}},
		{"0x2", nil, nil, []int{}},
		{"2.0", []int{3, 4, 1}, []int{2, 3}, []int{3, 4}},
		{"-0", nil, nil, []int{}},
		{"18446744073709551617", nil, nil, []int{}},
		{"4294967298", []int{1, 3, 4}, []int{2, 3}, []int{3, 4}},
		{"-4294967294", []int{3, 4, 1}, []int{2, 3}, []int{3, 4}},
		{"9223372036854775807", nil, nil, []int{}},
		{"-9223372036854775808", nil, nil, []int{}},
		{"9223372036854775808", nil, nil, []int{}},
		{"2147483647", nil, nil, []int{}},
		{"2147483648", nil, nil, []int{}},
		{"-2147483648", nil, nil, []int{}},
		{"4294967295", nil, nil, []int{}},
		{"4294967296", nil, nil, []int{}},
		{"4294967297", []int{1, 3}, []int{2}, []int{3}},
		{"6442450946", nil, nil, []int{}},
		{"-4294967295", []int{3, 1}, []int{2}, []int{3}},
		{"+", nil, nil, []int{}},
		{"-", nil, nil, []int{}},
		{" ", nil, nil, []int{}},
		{"00", nil, nil, []int{}},
		{"+0", nil, nil, []int{}},
		{"-2", nil, nil, []int{}},
		{"1e1", []int{3, 1}, []int{2}, []int{3}},
	} {
		for _, c := range []struct {
			line []string
			want []int
		}{
			{[]string{"zunionstore", "d", tt.count, "a", "b"}, tt.zunionstore},
			{[]string{"lmpop", tt.count, "a", "b", "left"}, tt.lmpop},
			{[]string{"eval", "s", tt.count, "a", "b"}, tt.eval},
		} {
			t.Run(fmt.Sprintf("%s %q", c.line[0], tt.count), func(t *testing.T) {
				a := make([][]byte, len(c.line))
				for i, s := range c.line {
					a[i] = []byte(s)
				}
				got, err := GetKeys(tb, a)
				switch {
				case c.want == nil && !errors.Is(err, ErrInvalidArgs):
					t.Fatalf("got %v, %v; want ErrInvalidArgs", got, err)
				case c.want != nil && (err != nil || !slices.Equal(got, c.want) || got == nil):
					t.Fatalf("got %#v, %v; want %#v", got, err, c.want)
				}
				// GETKEYSANDFLAGS finds the same keys (TestKeyRefs checks
				// their flags).
				refs, err := GetKeysAndFlags(tb, a)
				if (c.want == nil) != (err != nil) || len(refs) != len(c.want) {
					t.Fatalf("GetKeysAndFlags = %v, %v", refs, err)
				}
				for i, r := range refs {
					if r.Pos != c.want[i] {
						t.Errorf("GetKeysAndFlags key %d at %d, want %d", i, r.Pos, c.want[i])
					}
				}
			})
		}
	}
}

func TestCatoi(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want int32
	}{
		{"", 0}, {"0", 0}, {"7", 7}, {"-7", -7}, {"+7", 7}, {"007", 7},
		{" \t\n\v\f\r7", 7}, {"7 ", 7}, {"7abc", 7}, {"abc", 0}, {"+", 0}, {"-", 0},
		{"+-7", 0}, {" - 7", 0}, {"0x10", 0}, {"1e3", 1}, {"7\x008", 7},
		{"2147483647", 2147483647}, {"2147483648", -2147483648}, {"-2147483649", 2147483647},
		{"4294967298", 2}, {"-4294967294", 2}, {"4294967296", 0},
		// strtol saturates at LONG_MAX and LONG_MIN, whose low 32 bits are
		// -1 and 0.
		{"9223372036854775807", -1}, {"9223372036854775808", -1}, {"99999999999999999999", -1},
		{"-9223372036854775808", 0}, {"-9223372036854775809", 0}, {"-99999999999999999999", 0},
	} {
		if got := catoi([]byte(tt.in)); got != tt.want {
			t.Errorf("catoi(%q) = %d, want %d", tt.in, got, tt.want)
		}
	}
}

func TestNumKeysFunc(t *testing.T) {
	for _, tt := range []struct {
		name                      string
		store, count, first, step int
		line                      string
		want                      []int
	}{
		{"destination last", 1, 2, 3, 1, "zunionstore d 2 a b", []int{3, 4, 1}},
		{"no destination", 0, 1, 2, 1, "zunion 2 a b", []int{2, 3}},
		{"count past the arguments", 0, 1, 2, 1, "zunion 3 a b", nil},
		{"every other argument", 0, 1, 2, 2, "x 2 a 1 b 2", []int{2, 4}},
		{"every other, one short", 0, 1, 2, 2, "x 3 a 1 b 2", nil},
		{"count missing", 0, 2, 3, 1, "x a", nil},
		{"no step", 0, 1, 2, 0, "x 1 a", nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := NumKeysFunc(tt.store, tt.count, tt.first, tt.step)(args(tt.line)); !slices.Equal(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}
