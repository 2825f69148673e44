package command

import (
	"reflect"
	"strings"
	"testing"
)

func TestKeyRefs(t *testing.T) {
	line := func(s string) [][]byte {
		var args [][]byte
		for _, f := range strings.Fields(s) {
			args = append(args, []byte(f))
		}
		return args
	}
	setVar := setSpec()
	setVar.KeyFlagsFunc = func(args [][]byte, spec int) KeyFlag {
		if spec != 0 {
			t.Errorf("KeyFlagsFunc asked about key spec %d", spec)
		}
		if len(args) > 3 {
			return KeyRW | KeyAccess | KeyUpdate
		}
		return KeyOW | KeyUpdate
	}
	for _, tt := range []struct {
		spec *Spec
		line string
		want []KeyRef
	}{
		{getSpec(), "get a", []KeyRef{{1, KeyRO | KeyAccess}}},
		// Without a KeyFlagsFunc a variable-flags spec reports its own flags.
		{setSpec(), "set a b", []KeyRef{{1, KeyRW | KeyAccess | KeyUpdate | KeyVariableFlags}}},
		{setVar, "set a b", []KeyRef{{1, KeyOW | KeyUpdate}}},
		{setVar, "set a b get", []KeyRef{{1, KeyRW | KeyAccess | KeyUpdate}}},
		// Each key carries the flags of the spec that found it.
		{zunionstoreSpec(), "zunionstore d 2 a b", []KeyRef{{1, KeyOW | KeyUpdate}, {3, KeyRO | KeyAccess}, {4, KeyRO | KeyAccess}}},
		// Keys only KeysFunc finds have no flags, as with Redis's getkeys
		// procs ("02" is not a count the key specs accept; atoi takes it).
		{zunionstoreSpec(), "zunionstore d 02 a b", []KeyRef{{3, 0}, {4, 0}, {1, 0}}},
		// The key specs take 4294967298 as C's int 2: their keys, their
		// flags, destination first.
		{zunionstoreSpec(), "zunionstore d 4294967298 a b", []KeyRef{{1, KeyOW | KeyUpdate}, {3, KeyRO | KeyAccess}, {4, KeyRO | KeyAccess}}},
		{lmpopSpec(), "lmpop 3 a b left", []KeyRef{{2, KeyRW | KeyAccess | KeyDelete}, {3, KeyRW | KeyAccess | KeyDelete}, {4, KeyRW | KeyAccess | KeyDelete}}},
		{lmpopSpec(), "lmpop +3 a b left", []KeyRef{{2, 0}, {3, 0}, {4, 0}}},
		{zunionstoreSpec(), "zunionstore d x a b", nil},
		{msetSpec(), "mset a 1 b 2", []KeyRef{{1, KeyOW | KeyUpdate}, {3, KeyOW | KeyUpdate}}},
	} {
		args := line(tt.line)
		if got := tt.spec.KeyRefs(args); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("KeyRefs(%q) = %v, want %v", tt.line, got, tt.want)
		}
		// The positions are always KeyIndices's.
		var pos []int
		for _, r := range tt.want {
			pos = append(pos, r.Pos)
		}
		if got := tt.spec.KeyIndices(args); !reflect.DeepEqual(got, pos) {
			t.Errorf("KeyIndices(%q) = %v, want %v", tt.line, got, pos)
		}
	}
}

func TestGetKeysAndFlags(t *testing.T) {
	tb := NewTable()
	tb.Add(getSpec())
	tb.Add(evalSpec())
	tb.Add(&Spec{Name: "ping", Arity: -1})
	for _, tt := range []struct {
		line string
		want []KeyRef
		err  error
	}{
		{"get a", []KeyRef{{1, KeyRO | KeyAccess}}, nil},
		{"GET a", []KeyRef{{1, KeyRO | KeyAccess}}, nil},
		{"get a b", nil, ErrInvalidArgCount},
		{"nosuch a", nil, ErrInvalidCommand},
		{"ping a", nil, ErrNoKeyArgs},
		// EVAL's keys are optional: no keys is an empty answer.
		{"eval s 0", []KeyRef{}, nil},
	} {
		var args [][]byte
		for _, f := range strings.Fields(tt.line) {
			args = append(args, []byte(f))
		}
		got, err := GetKeysAndFlags(tb, args)
		if err != tt.err || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("GetKeysAndFlags(%q) = %v, %v; want %v, %v", tt.line, got, err, tt.want, tt.err)
		}
	}
}
