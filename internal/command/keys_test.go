package command

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

func args(line string) [][]byte {
	var out [][]byte
	for _, f := range strings.Fields(line) {
		if f == `""` {
			f = ""
		}
		out = append(out, []byte(f))
	}
	return out
}

func TestCheckArity(t *testing.T) {
	tests := []struct {
		arity, argc int
		want        bool
	}{
		{2, 2, true},
		{2, 1, false},
		{2, 3, false},
		{-3, 2, false},
		{-3, 3, true},
		{-3, 10, true},
		{-1, 1, true},
		{-1, 0, false},
		{1, 0, false},
	}
	for _, tt := range tests {
		s := &Spec{Arity: tt.arity}
		if got := s.CheckArity(tt.argc); got != tt.want {
			t.Errorf("arity %d, argc %d: got %v, want %v", tt.arity, tt.argc, got, tt.want)
		}
	}
}

func TestKeyIndices(t *testing.T) {
	legacy := &Spec{Name: "legacy", Arity: -2, First: 1, Last: -1, Step: 2}
	noStore := zunionstoreSpec()
	noStore.KeysFunc = nil
	sloppy := &Spec{Name: "sloppy", Arity: -1, KeysFunc: func([][]byte) []int { return []int{-1, 0, 1, 2, 99} }}
	backwards := &Spec{Name: "backwards", Arity: -2, KeySpecs: []KeySpec{
		{Flags: KeyRO, Begin: KeywordSearch("FROM", -1), Find: RangeKeys(0, 1, 0)},
	}}
	tests := []struct {
		name string
		spec *Spec
		line string
		want []int
	}{
		{"get", getSpec(), "get k", []int{1}},
		{"get upper case name", getSpec(), "GET k", []int{1}},
		{"get missing key", getSpec(), "get", nil},
		{"no args at all", getSpec(), "", nil},
		{"set uses its specs without a KeysFunc", setSpec(), "set k v get", []int{1}},
		{"mset pairs", msetSpec(), "mset a 1 b 2", []int{1, 3}},
		{"mset odd count, as GETKEYS", msetSpec(), "mset a 1 b", []int{1, 3}},
		{"mset alone", msetSpec(), "mset", nil},
		{"xread half the args after STREAMS", xreadSpec(), "xread streams a b c d", []int{2, 3}},
		{"xread odd tail", xreadSpec(), "xread streams a b c", []int{2}},
		{"xread options first", xreadSpec(), "xread count 1 streams a b", []int{4}},
		{"xread keyword any case", xreadSpec(), "xread StReAmS a 0", []int{2}},
		{"xread keyword folds ASCII only", xreadSpec(), "xread ſtreams a 0", nil},
		{"xread keyword ends at a NUL byte", xreadSpec(), "xread STREAMS\x00x a 0", []int{2}},
		{"xread keyword last", xreadSpec(), "xread a b streams", nil},
		{"xread no keyword", xreadSpec(), "xread a b c", nil},
		{"zunionstore from specs: destination first", zunionstoreSpec(), "zunionstore d 2 a b", []int{1, 3, 4}},
		{"zunionstore with options", zunionstoreSpec(), "zunionstore d 1 a weights 2", []int{1, 3}},
		{"zunionstore zero keys", zunionstoreSpec(), "zunionstore d 0 a", nil},
		{"zunionstore too many", zunionstoreSpec(), "zunionstore d 5 a b", nil},
		{"zunionstore not a number", zunionstoreSpec(), "zunionstore d x a b", nil},
		{"zunionstore negative", zunionstoreSpec(), "zunionstore d -1 a b", nil},
		{"zunionstore leading zero", noStore, "zunionstore d 01 a", nil},
		{"zunionstore plus sign", noStore, "zunionstore d +1 a", nil},
		{"zunionstore huge count", noStore, "zunionstore d 99999999999999999999 a", nil},
		{"zunionstore max int64 count", noStore, "zunionstore d 9223372036854775807 a", nil},
		{"zunionstore count missing", noStore, "zunionstore d", nil},
		{"zunionstore short of keys", zunionstoreSpec(), "zunionstore d 2 a", nil},
		{"eval keys", evalSpec(), "eval s 2 a b c", []int{3, 4}},
		{"eval no keys", evalSpec(), "eval s 0", nil},
		{"eval short", evalSpec(), "eval s 3 a b", nil},
		{"migrate single key", migrateSpec(), "migrate h p k 0 5", []int{3}},
		{"migrate KEYS is incomplete, so KeysFunc", migrateSpec(), `migrate h p "" 0 5 keys a b`, []int{7, 8}},
		{"sort unknown specs fall back", sortSpec(), "sort k by x store d", []int{1, 5}},
		{"not_key specs are skipped", spublishSpec(), "spublish ch msg", nil},
		{"negative startfrom scans backwards", backwards, "x a from b from c", []int{5}},
		{"negative startfrom stops before argument 1", backwards, "x from a", nil},
		{"legacy range", legacy, "legacy a 1 b 2", []int{1, 3}},
		{"legacy range past the end", &Spec{Name: "l", Arity: -1, First: 1, Last: 2, Step: 1}, "l a", nil},
		{"legacy without a step", &Spec{Name: "l", Arity: -1, First: 1, Last: 1}, "l a", nil},
		{"KeysFunc results are bounded", sloppy, "sloppy a b", []int{1, 2}},
		{"no keys", pingSpec(), "ping hello", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.spec.KeyIndices(args(tt.line))
			if !slices.Equal(got, tt.want) {
				t.Errorf("KeyIndices(%q) = %v, want %v", tt.line, got, tt.want)
			}
		})
	}
}

func TestAppendKeyIndicesKeepsDst(t *testing.T) {
	dst := []int{42}
	if got := msetSpec().AppendKeyIndices(dst, args("mset a 1 b 2")); !slices.Equal(got, []int{42, 1, 3}) {
		t.Errorf("got %v", got)
	}
	// A failing spec after a good one must not leave the good one's keys.
	if got := noKeysFuncSort().AppendKeyIndices(dst, args("sort k")); !slices.Equal(got, []int{42}) {
		t.Errorf("got %v", got)
	}
}

func noKeysFuncSort() *Spec {
	s := sortSpec()
	s.KeysFunc = nil
	return s
}

func TestAppendKeyIndicesAllocations(t *testing.T) {
	s := zunionstoreSpec()
	a := args("zunionstore d 3 a b c")
	buf := make([]int, 0, 8)
	allocs := testing.AllocsPerRun(100, func() { buf = s.AppendKeyIndices(buf[:0], a) })
	if allocs != 0 {
		t.Errorf("AppendKeyIndices allocates %v times", allocs)
	}
}

// The cases are redis-server 7.0.15's answers to COMMAND GETKEYS.
func TestGetKeys(t *testing.T) {
	table := testTable()
	tests := []struct {
		line    string
		want    []int
		wantErr error
	}{
		{"get k", []int{1}, nil},
		{"GET k", []int{1}, nil},
		{"get a b", nil, ErrInvalidArgCount},
		{"ping", nil, ErrNoKeyArgs},
		{"foo", nil, ErrInvalidCommand},
		{"", nil, ErrInvalidCommand},
		{"zunionstore d 0 a", nil, ErrInvalidArgs},
		{"zunionstore d 5 a b", nil, ErrInvalidArgs},
		{"zunionstore d 2 a b", []int{1, 3, 4}, nil},
		{"zunionstore d x a b", nil, ErrInvalidArgs},
		{"eval x 0", []int{}, nil},
		{"eval x 2 a b c", []int{3, 4}, nil},
		{"eval x 3 a b", []int{}, nil},
		{"config get x", nil, ErrNoKeyArgs},
		{"CONFIG GET x", nil, ErrNoKeyArgs},
		{"config foo x", nil, ErrInvalidCommand},
		{"xread streams a b c d", []int{2, 3}, nil},
		{"xread a b streams", nil, ErrInvalidArgs},
		{"xread streams a", nil, ErrInvalidArgCount},
		{"mset a 1 b", []int{1, 3}, nil},
		{"mset a", nil, ErrInvalidArgCount},
		{"migrate h p k 0 5", []int{3}, nil},
		{`migrate h p "" 0 5 keys a b`, []int{7, 8}, nil},
		{"sort k by x store d", []int{1, 5}, nil},
		{"set k v", []int{1}, nil},
		{"spublish ch msg", nil, ErrNoKeyArgs},
	}
	for _, tt := range tests {
		t.Run(tt.line, func(t *testing.T) {
			got, err := GetKeys(table, args(tt.line))
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("error %v, want %v", err, tt.wantErr)
			}
			if !slices.Equal(got, tt.want) || (tt.want != nil) != (got != nil) {
				t.Errorf("got %#v, want %#v", got, tt.want)
			}
		})
	}
}

func TestKeyRangeAndFlags(t *testing.T) {
	two := func(a, b KeySpec) *Spec { return &Spec{Name: "x", Arity: -1, KeySpecs: []KeySpec{a, b}} }
	at := func(i, last int) KeySpec {
		return KeySpec{Flags: KeyRW, Begin: IndexSearch(i), Find: RangeKeys(last, 1, 0)}
	}
	tests := []struct {
		name              string
		spec              *Spec
		first, last, step int
		movable           bool
	}{
		{"get", getSpec(), 1, 1, 1, false},
		{"mset keeps its step", msetSpec(), 1, -1, 2, false},
		{"xread has no index spec", xreadSpec(), 0, 0, 0, true},
		{"zunionstore keeps the destination", zunionstoreSpec(), 1, 1, 1, true},
		{"migrate", migrateSpec(), 3, 3, 1, true},
		{"sort", sortSpec(), 1, 1, 1, true},
		{"eval", evalSpec(), 0, 0, 0, true},
		{"no keys", pingSpec(), 0, 0, 0, false},
		{"consecutive specs glue (smove)", two(at(1, 0), at(2, 0)), 1, 2, 1, false},
		{"to the end wins (unsigned compare)", two(at(1, 0), at(2, -1)), 1, -1, 1, false},
		{"gap is skipped and movable", two(at(1, 0), at(3, 0)), 1, 1, 1, true},
		{
			"single incomplete spec is movable",
			&Spec{Name: "x", Arity: -1, KeySpecs: []KeySpec{{Flags: KeyRW | KeyIncomplete, Begin: IndexSearch(1), Find: RangeKeys(0, 1, 0)}}},
			1, 1, 1, true,
		},
		{"explicit range wins", &Spec{Name: "x", Arity: -1, First: 2, Last: 3, Step: 1, KeySpecs: getSpec().KeySpecs}, 2, 3, 1, false},
		{"KeysFunc without specs is movable", &Spec{Name: "x", Arity: -1, KeysFunc: func([][]byte) []int { return nil }}, 0, 0, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			first, last, step := tt.spec.KeyRange()
			if first != tt.first || last != tt.last || step != tt.step {
				t.Errorf("KeyRange = %d %d %d, want %d %d %d", first, last, step, tt.first, tt.last, tt.step)
			}
			if got := tt.spec.ReportedFlags()&MovableKeys != 0; got != tt.movable {
				t.Errorf("movablekeys = %v, want %v", got, tt.movable)
			}
		})
	}
}

func TestCategories(t *testing.T) {
	tests := []struct {
		name string
		spec *Spec
		want []string
	}{
		{"get", getSpec(), []string{"@read", "@string", "@fast"}},
		{"set", setSpec(), []string{"@write", "@string", "@slow"}},
		{"xread", xreadSpec(), []string{"@read", "@stream", "@slow", "@blocking"}},
		{"readonly script is not @read", &Spec{Flags: ReadOnly, ACL: CatScripting}, []string{"@slow", "@scripting"}},
		{"admin is dangerous", pfdebugSpec(), []string{"@write", "@hyperloglog", "@admin", "@slow", "@dangerous"}},
		{"pubsub", spublishSpec(), []string{"@pubsub", "@fast"}},
		{"container", configSpec(), []string{"@slow"}},
		{"fast by category alone", &Spec{ACL: CatFast}, []string{"@fast"}},
	}
	for _, tt := range tests {
		if got := tt.spec.Categories().Names(); !slices.Equal(got, tt.want) {
			t.Errorf("%s: got %v, want %v", tt.name, got, tt.want)
		}
	}
}

// FuzzKeyIndices checks that no argument list makes key extraction panic or
// return an index outside the arguments.
func FuzzKeyIndices(f *testing.F) {
	specs := testTable().All()
	backwards := &Spec{Name: "backwards", Arity: -2, KeySpecs: []KeySpec{
		{Flags: KeyRO, Begin: KeywordSearch("FROM", -1), Find: RangeKeys(-2, 1, 0)},
	}}
	specs = append(specs, backwards, &Spec{Name: "legacy", Arity: -1, First: 2, Last: -2, Step: 3})
	for _, line := range []string{
		"get k", "mset a 1 b", "xread streams a b c d", "zunionstore d 2 a b",
		"zunionstore d 9223372036854775807 a", "eval s 1", "migrate h p  0 5 keys a b",
		"sort k store", "x from", "", "legacy a b c d e f",
	} {
		for i := range specs {
			f.Add(uint8(i), line)
		}
	}
	f.Fuzz(func(t *testing.T, which uint8, line string) {
		s := specs[int(which)%len(specs)]
		a := [][]byte{}
		for _, p := range strings.Split(line, " ") {
			a = append(a, []byte(p))
		}
		for _, i := range s.KeyIndices(a) {
			if i < 1 || i >= len(a) {
				t.Fatalf("%s %q: index %d out of range", s.Name, line, i)
			}
		}
	})
}
