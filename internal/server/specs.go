package server

import "github.com/cairndb/cairn/internal/command"

// Shorthands for building command specs beside their handlers.
const (
	write    = command.Write
	readonly = command.ReadOnly
	fast     = command.Fast
	denyoom  = command.DenyOOM
	admin    = command.Admin
	noscript = command.NoScript
	loading  = command.Loading
	stale    = command.Stale
	noauth   = command.NoAuth
)

// Redis 7 key-specification flags, for the command tables.
const (
	ro  = command.KeyRO
	rw  = command.KeyRW
	ow  = command.KeyOW
	acc = command.KeyAccess
	upd = command.KeyUpdate
	ins = command.KeyInsert
	del = command.KeyDelete
)

// withKeyFlags replaces the RO/RW flags def derives with Redis's full key
// specification flags for the command's first run of keys.
func withKeyFlags(e cmdEntry, f command.KeyFlag) cmdEntry {
	e.spec.KeySpecs[0].Flags = f
	return e
}

// withKeyNotes sets the "notes" of the command's first key specification,
// as Redis documents why a key is flagged as it is.
func withKeyNotes(e cmdEntry, notes string) cmdEntry {
	e.spec.KeySpecs[0].Notes = notes
	return e
}

// keys is a command's legacy key range: first, last (negative counts from
// the end) and step, as Redis's COMMAND INFO reports them.
type keys struct{ first, last, step int }

var noKeys = keys{}

// def builds a command entry. The ACL categories implied by the flags
// (@read, @write, @fast, @slow, @admin, @dangerous) are added here, as
// Redis derives them.
func def(name string, arity int, flags command.Flag, k keys, acl command.Category, group, since, summary string, run handler) cmdEntry {
	if flags&command.Write != 0 {
		acl |= command.CatWrite
	}
	if flags&command.ReadOnly != 0 && acl&command.CatScripting == 0 {
		acl |= command.CatRead
	}
	if flags&command.Admin != 0 {
		acl |= command.CatAdmin | command.CatDangerous
	}
	if flags&command.Fast != 0 {
		acl |= command.CatFast
	} else {
		acl |= command.CatSlow
	}
	spec := &command.Spec{
		Name: name, Arity: arity, Flags: flags,
		First: k.first, Last: k.last, Step: k.step,
		ACL: acl, Group: group, Since: since, Summary: summary,
	}
	if k.first > 0 {
		kf := command.KeyRW
		if flags&command.ReadOnly != 0 {
			kf = command.KeyRO
		}
		spec.KeySpecs = []command.KeySpec{legacyKeySpec(k, kf)}
	}
	return cmdEntry{spec: spec, run: run, stats: new(cmdStats)}
}

// container builds a command with subcommands (CONFIG, CLIENT, ...).
func container(name string, group, since, summary string, acl command.Category, subs ...cmdEntry) cmdEntry {
	e := def(name, -2, 0, noKeys, acl, group, since, summary, nil)
	e.subs = subs
	return e
}

// legacyKeySpec turns a legacy key range into the equivalent Redis 7 key
// specification.
func legacyKeySpec(k keys, flags command.KeyFlag) command.KeySpec {
	last := k.last
	if last >= 0 {
		last -= k.first
	}
	step := max(k.step, 1)
	return command.KeySpec{Flags: flags, Begin: command.IndexSearch(k.first), Find: command.RangeKeys(last, step, 0)}
}

// withTwoKeySpecs gives a command Redis's two key specifications: the key
// at 1 with flags first, then the key at 2 (or, with rest, every key from 2
// on) with flags second.
func withTwoKeySpecs(e cmdEntry, first, second command.KeyFlag, rest bool) cmdEntry {
	last := 0
	if rest {
		last = -1
	}
	e.spec.KeySpecs = []command.KeySpec{
		{Flags: first, Begin: command.IndexSearch(1), Find: command.RangeKeys(0, 1, 0)},
		{Flags: second, Begin: command.IndexSearch(2), Find: command.RangeKeys(last, 1, 0)},
	}
	return e
}
