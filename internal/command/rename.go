package command

import (
	"errors"
	"slices"
)

// Errors of Rename, in Redis's words for a rename-command it refuses.
var (
	ErrRenameNoSuchCommand = errors.New("No such command in rename-command")
	ErrRenameTargetExists  = errors.New("Target command name already exists")
	ErrRenameTargetTooLong = errors.New("Target command name is too long")
)

// Rename makes the command called old answer to newName instead, or to no
// name at all when newName is empty, as Redis's rename-command directive
// does. Names are case-insensitive. The spec keeps its own name, so
// COMMAND INFO and COMMAND LIST still show a renamed command under its
// original name, as Redis does, while a disabled command is gone from them
// and from COMMAND COUNT. Like Add, Rename must run before the table is
// used.
func (t *Table) Rename(old, newName string) error {
	var buf [maxNameLen]byte
	oldKey, ok := lowerInto(&buf, []byte(old))
	if !ok {
		return ErrRenameNoSuchCommand
	}
	spec := t.cmds[string(oldKey)]
	if spec == nil {
		return ErrRenameNoSuchCommand
	}
	delete(t.cmds, string(oldKey))
	if newName == "" {
		t.sorted = slices.DeleteFunc(t.sorted, func(s *Spec) bool { return s == spec })
		t.disabled = append(t.disabled, spec)
		return nil
	}
	var nbuf [maxNameLen]byte
	newKey, ok := lowerInto(&nbuf, []byte(newName))
	if !ok {
		t.cmds[string(oldKey)] = spec
		return ErrRenameTargetTooLong
	}
	if t.cmds[string(newKey)] != nil {
		t.cmds[string(oldKey)] = spec
		return ErrRenameTargetExists
	}
	t.cmds[string(newKey)] = spec
	return nil
}
