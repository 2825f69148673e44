package command

import (
	"errors"
	"strings"
	"testing"
)

func TestRename(t *testing.T) {
	mk := func() *Table {
		tb := NewTable()
		for _, name := range []string{"get", "set", "config"} {
			tb.Add(&Spec{Name: name, Arity: -1})
		}
		return tb
	}
	tests := []struct {
		name    string
		renames [][2]string
		err     error
		present []string // names that must find a command
		absent  []string
		count   int
		listed  string // the specs' names in All, space-joined
	}{
		{name: "rename", renames: [][2]string{{"CONFIG", "cfg-Secret"}},
			present: []string{"CFG-SECRET", "get"}, absent: []string{"config"}, count: 3, listed: "config get set"},
		{name: "disable", renames: [][2]string{{"config", ""}},
			absent: []string{"config"}, count: 2, listed: "get set"},
		{name: "swap through a free name", renames: [][2]string{{"get", "tmp"}, {"set", "get"}, {"tmp", "set"}},
			present: []string{"get", "set"}, absent: []string{"tmp"}, count: 3, listed: "config get set"},
		{name: "unknown", renames: [][2]string{{"nosuch", "x"}}, err: ErrRenameNoSuchCommand, count: 3, listed: "config get set"},
		{name: "renamed twice", renames: [][2]string{{"get", "fetch"}, {"get", "x"}}, err: ErrRenameNoSuchCommand,
			present: []string{"fetch"}, count: 3, listed: "config get set"},
		{name: "target taken", renames: [][2]string{{"get", "SET"}}, err: ErrRenameTargetExists,
			present: []string{"get", "set"}, count: 3, listed: "config get set"},
		{name: "target too long", renames: [][2]string{{"get", strings.Repeat("x", maxNameLen+1)}}, err: ErrRenameTargetTooLong,
			present: []string{"get"}, count: 3, listed: "config get set"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tb := mk()
			var err error
			for _, r := range tt.renames {
				if err = tb.Rename(r[0], r[1]); err != nil {
					break
				}
			}
			if !errors.Is(err, tt.err) {
				t.Fatalf("error %v, want %v", err, tt.err)
			}
			for _, n := range tt.present {
				if tb.Lookup([]byte(n)) == nil {
					t.Errorf("%s finds nothing", n)
				}
			}
			for _, n := range tt.absent {
				if tb.Lookup([]byte(n)) != nil {
					t.Errorf("%s still finds a command", n)
				}
			}
			if tb.Len() != tt.count {
				t.Errorf("Len() = %d, want %d", tb.Len(), tt.count)
			}
			var names []string
			for _, s := range tb.All() {
				names = append(names, s.Name)
			}
			if got := strings.Join(names, " "); got != tt.listed {
				t.Errorf("All() = %s, want %s", got, tt.listed)
			}
		})
	}
}
