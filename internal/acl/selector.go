package acl

import (
	"bytes"
	"errors"
	"slices"
	"strings"

	"github.com/cairndb/cairn/internal/command"
	"github.com/cairndb/cairn/internal/glob"
)

// Key permissions of a key pattern.
const (
	permRead  = 1
	permWrite = 2
	permAll   = permRead | permWrite
)

type keyPattern struct {
	perm    uint8
	pattern string
	// raw is pattern's bytes, matched without a conversion per check.
	raw []byte
	// kind is how the pattern matches: the glob matcher, or, for the
	// common shapes, a comparison that costs less.
	kind    matchKind
	literal []byte // matchExact: the key; matchPrefix: its prefix
}

type matchKind uint8

const (
	matchGlob   matchKind = iota
	matchExact            // no special byte: the key itself
	matchPrefix           // a literal then one trailing '*'
)

func newKeyPattern(perm uint8, pat string) keyPattern {
	k := keyPattern{perm: perm, pattern: pat, raw: []byte(pat)}
	switch n := len(k.raw); {
	case glob.Literal(k.raw):
		k.kind, k.literal = matchExact, k.raw
	case k.raw[n-1] == '*' && glob.Literal(k.raw[:n-1]):
		k.kind, k.literal = matchPrefix, k.raw[:n-1]
	}
	return k
}

// match is glob.Match(pattern, key), faster for the common shapes.
func (k *keyPattern) match(key []byte) bool {
	switch k.kind {
	case matchExact:
		return bytes.Equal(k.literal, key)
	case matchPrefix:
		// As Redis's matcher, "*" needs at least one byte.
		return len(key) > 0 && bytes.HasPrefix(key, k.literal)
	}
	return glob.Match(k.raw, key, false)
}

func (k keyPattern) String() string {
	switch k.perm {
	case permRead:
		return "%R~" + k.pattern
	case permWrite:
		return "%W~" + k.pattern
	}
	return "~" + k.pattern
}

// selector is one set of permissions: commands, keys, channels. Selectors
// are copied on change, never modified once published in a Profile.
type selector struct {
	root        bool
	allKeys     bool
	allChannels bool
	// allCommands is set by +@all and cleared when any command is taken
	// away; future, also set by +@all, survives that and says the rules
	// started from +@all (Redis's reserved command bit).
	allCommands bool
	future      bool
	bits        []uint64
	// firstArgs are the allowed first arguments of an otherwise denied
	// command (+select|0), by command id.
	firstArgs map[int][]string
	// rules are the command rules in order ("+get", "-@string"), as ACL
	// LIST shows them after the leading +@all or -@all.
	rules    []string
	keys     []keyPattern
	channels []string
}

func newSelector(cat *Catalog, root, allChannels bool) *selector {
	return &selector{root: root, allChannels: allChannels, bits: make([]uint64, (cat.Len()+63)/64)}
}

func (s *selector) clone() *selector {
	n := *s
	n.bits = slices.Clone(s.bits)
	n.rules = slices.Clone(s.rules)
	n.keys = slices.Clone(s.keys)
	n.channels = slices.Clone(s.channels)
	if s.firstArgs != nil {
		n.firstArgs = make(map[int][]string, len(s.firstArgs))
		for k, v := range s.firstArgs {
			n.firstArgs[k] = slices.Clone(v)
		}
	}
	return &n
}

func (s *selector) bit(id int) bool { return s.bits[id/64]&(1<<(id%64)) != 0 }

func (s *selector) setBit(id int, on bool) {
	if on {
		s.bits[id/64] |= 1 << (id % 64)
	} else {
		s.bits[id/64] &^= 1 << (id % 64)
		s.allCommands = false
	}
}

// changePerm allows or denies a command and, for a container, all its
// subcommands, as Redis's ACLChangeSelectorPerm.
func (s *selector) changePerm(cmd *Command, allow bool) {
	s.setBit(cmd.ID, allow)
	delete(s.firstArgs, cmd.ID)
	for _, sub := range cmd.Subs {
		s.setBit(sub.ID, allow)
	}
}

// updateRules records a command rule, dropping the earlier rules it
// overrides: the same name, or a subcommand of it.
func (s *selector) updateRules(name string, allow bool) {
	name = asciiLower(cstr(name))
	kept := s.rules[:0]
	for _, r := range s.rules {
		old := r[1:]
		if old == name || (len(old) > len(name) && strings.HasPrefix(old, name) && old[len(name)] == '|') {
			continue
		}
		kept = append(kept, r)
	}
	s.rules = kept
	if allow {
		s.rules = append(s.rules, "+"+name)
	} else {
		s.rules = append(s.rules, "-"+name)
	}
}

// Errors of a rule, with Redis's texts (ACLSetUserStringError).
var (
	ErrUnknownCommand     = errors.New("Unknown command or category name in ACL")
	ErrSyntax             = errors.New("Syntax error")
	ErrKeyAfterAll        = errors.New("Adding a pattern after the * pattern (or the 'allkeys' flag) is not valid and does not have any effect. Try 'resetkeys' to start with an empty list of patterns")
	ErrChannelAfterAll    = errors.New("Adding a pattern after the * pattern (or the 'allchannels' flag) is not valid and does not have any effect. Try 'resetchannels' to start with an empty list of channels")
	ErrNoSuchPassword     = errors.New("The password you are trying to remove from the user does not exist")
	ErrBadHash            = errors.New("The password hash must be exactly 64 characters and contain only lowercase hexadecimal characters")
	ErrDuplicateUser      = errors.New("Duplicate user found. A user can only be defined once in config files")
	ErrSubcommandFirstArg = errors.New("Allowing first-arg of a subcommand is not supported")
)

// hasSpaces reports whether s holds white space or NUL, which usernames and
// patterns may not (Redis's ACLStringHasSpaces, with C's isspace).
func hasSpaces(s string) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ' ', '\t', '\n', '\v', '\f', '\r', 0:
			return true
		}
	}
	return false
}

// apply applies one selector rule, as Redis's ACLSetSelector.
func (s *selector) apply(cat *Catalog, op string) error {
	switch {
	case op == "":
		return nil
	case is(op, "allkeys") || is(op, "~*"):
		s.allKeys = true
		s.keys = nil
	case is(op, "resetkeys"):
		s.allKeys = false
		s.keys = nil
	case is(op, "allchannels") || is(op, "&*"):
		s.allChannels = true
		s.channels = nil
	case is(op, "resetchannels"):
		s.allChannels = false
		s.channels = nil
	case is(op, "allcommands") || is(op, "+@all"):
		for i := range s.bits {
			s.bits[i] = ^uint64(0)
		}
		s.allCommands, s.future = true, true
		s.rules = nil
		s.firstArgs = nil
	case is(op, "nocommands") || is(op, "-@all"):
		clear(s.bits)
		s.allCommands, s.future = false, false
		s.rules = nil
		s.firstArgs = nil
	case op[0] == '~' || op[0] == '%':
		return s.addKeyPattern(op)
	case op[0] == '&':
		if s.allChannels {
			return ErrChannelAfterAll
		}
		if hasSpaces(op[1:]) {
			return ErrSyntax
		}
		if !slices.Contains(s.channels, op[1:]) {
			s.channels = append(s.channels, op[1:])
		}
		s.allChannels = false
	case op[0] == '+' && (len(op) == 1 || op[1] != '@'):
		return s.allowCommand(cat, op[1:])
	case op[0] == '-' && (len(op) == 1 || op[1] != '@'):
		cmd := cat.Lookup(op[1:])
		if cmd == nil {
			return ErrUnknownCommand
		}
		s.changePerm(cmd, false)
		s.updateRules(cmd.Name, false)
	case len(op) > 1 && (op[0] == '+' || op[0] == '-') && op[1] == '@':
		c, ok := CategoryByName(op[2:])
		if !ok {
			return ErrUnknownCommand
		}
		allow := op[0] == '+'
		s.updateRules(op[1:], allow)
		for _, cmd := range cat.cmds {
			if cmd.Cats&c != 0 {
				s.changePerm(cmd, allow)
			}
		}
	default:
		return ErrSyntax
	}
	return nil
}

func (s *selector) addKeyPattern(op string) error {
	if s.allKeys {
		return ErrKeyAfterAll
	}
	perm := uint8(permAll)
	off := 1
	if op[0] == '%' {
		perm = 0
		for ; ; off++ {
			if off >= len(op) {
				// Redis takes "%R" as the empty pattern; a bare "%" would
				// leave a pattern with no permission, which it cannot
				// describe: refused here.
				if perm == 0 {
					return ErrSyntax
				}
				goto done
			}
			c := asciiLowerByte(op[off])
			switch {
			case c == 'r' && perm&permRead == 0:
				perm |= permRead
			case c == 'w' && perm&permWrite == 0:
				perm |= permWrite
			case op[off] == '~' && perm != 0:
				off++
				goto done
			default:
				return ErrSyntax
			}
		}
	}
done:
	pat := op[off:]
	if hasSpaces(pat) {
		return ErrSyntax
	}
	for i := range s.keys {
		if s.keys[i].pattern == pat {
			s.keys[i].perm |= perm
			return nil
		}
	}
	s.keys = append(s.keys, newKeyPattern(perm, pat))
	return nil
}

// allowCommand applies +name, +name|sub or +name|firstarg.
func (s *selector) allowCommand(cat *Catalog, name string) error {
	// Redis reads the rule as a C string.
	name = cstr(name)
	i := strings.LastIndexByte(name, '|')
	if i < 0 {
		cmd := cat.Lookup(name)
		if cmd == nil {
			return ErrUnknownCommand
		}
		s.changePerm(cmd, true)
		s.updateRules(cmd.Name, true)
		return nil
	}
	base, sub := name[:i], name[i+1:]
	cmd := cat.Lookup(base)
	switch {
	case cmd == nil:
		return ErrUnknownCommand
	case cmd.Parent != nil:
		return ErrSubcommandFirstArg
	case sub == "":
		return ErrSyntax
	}
	if len(cmd.Subs) > 0 {
		full := cat.Lookup(name)
		if full == nil {
			return ErrUnknownCommand
		}
		s.changePerm(full, true)
	} else {
		if s.firstArgs == nil {
			s.firstArgs = map[int][]string{}
		}
		args := s.firstArgs[cmd.ID]
		if !slices.ContainsFunc(args, func(a string) bool { return is(a, sub) }) {
			s.firstArgs[cmd.ID] = append(args, sub)
		}
	}
	s.updateRules(name, true)
	return nil
}

// describeCommands is the selector's command rules as ACL SETUSER takes
// them: +@all or -@all, then the rules in order.
func (s *selector) describeCommands() string {
	var b strings.Builder
	if s.future {
		b.WriteString("+@all")
	} else {
		b.WriteString("-@all")
	}
	for _, r := range s.rules {
		b.WriteByte(' ')
		b.WriteString(r)
	}
	return b.String()
}

// describe is the whole selector in rule syntax (Redis's
// ACLDescribeSelector).
func (s *selector) describe() string {
	var b strings.Builder
	if s.allKeys {
		b.WriteString("~* ")
	} else {
		for _, k := range s.keys {
			b.WriteString(k.String())
			b.WriteByte(' ')
		}
	}
	if s.allChannels {
		b.WriteString("&* ")
	} else {
		b.WriteString("resetchannels ")
		for _, c := range s.channels {
			b.WriteString("&" + c + " ")
		}
	}
	b.WriteString(s.describeCommands())
	return b.String()
}

// KeysDescription is ACL GETUSER's "keys" field.
func (s *selector) keysDescription() string {
	if s.allKeys {
		return "~*"
	}
	parts := make([]string, len(s.keys))
	for i, k := range s.keys {
		parts[i] = k.String()
	}
	return strings.Join(parts, " ")
}

// channelsDescription is ACL GETUSER's "channels" field.
func (s *selector) channelsDescription() string {
	if s.allChannels {
		return "&*"
	}
	parts := make([]string, len(s.channels))
	for i, c := range s.channels {
		parts[i] = "&" + c
	}
	return strings.Join(parts, " ")
}

// Scratch is reusable working space for checks, so that a connection's
// checks allocate nothing once its buffers have grown. The zero value is
// ready; it is not safe for concurrent use.
type Scratch struct {
	refs []command.KeyRef
	keys command.KeyScratch
}

// keyChecker finds a command's keys once for all of a user's selectors.
type keyChecker struct {
	sc   *Scratch
	refs []command.KeyRef
	done bool
}

func (k *keyChecker) get(cmd *Command, args [][]byte) []command.KeyRef {
	if !k.done {
		k.sc.refs = cmd.Spec.AppendKeyRefs(k.sc.refs[:0], args, &k.sc.keys)
		k.refs = k.sc.refs
		k.done = true
	}
	return k.refs
}

// check is Redis's ACLSelectorCheckCmd: whether the selector allows the
// command line, and if not why and at which argument.
func (s *selector) check(cmd *Command, args [][]byte, keys *keyChecker) (Reason, int) {
	if !s.allCommands && !cmd.noAuth && !s.bit(cmd.ID) {
		allowed := false
		if fa := s.firstArgs[cmd.ID]; len(fa) > 0 && len(args) >= 2 {
			idx := 1
			if cmd.Parent != nil {
				idx = 2
			}
			if idx < len(args) {
				for _, a := range fa {
					if is(string(args[idx]), a) {
						allowed = true
						break
					}
				}
			}
		}
		if !allowed {
			return DeniedCommand, 0
		}
	}
	if !s.allKeys && cmd.hasKeys {
		for _, r := range keys.get(cmd, args) {
			if !s.keyAllowed(args[r.Pos], r.Flags) {
				return DeniedKey, r.Pos
			}
		}
	}
	if !s.allChannels && cmd.chanCheck {
		end := len(args)
		if cmd.chanCount >= 0 {
			end = min(cmd.chanStart+cmd.chanCount, len(args))
		}
		for i := cmd.chanStart; i < end; i++ {
			if !channelAllowed(s.channels, string(args[i]), cmd.chanPattern) {
				return DeniedChannel, i
			}
		}
	}
	return OK, 0
}

// keyAllowed is Redis's ACLSelectorCheckKey.
func (s *selector) keyAllowed(key []byte, flags command.KeyFlag) bool {
	if s.allKeys {
		return true
	}
	var need uint8
	if flags&command.KeyAccess != 0 {
		need |= permRead
	}
	if flags&(command.KeyInsert|command.KeyDelete|command.KeyUpdate) != 0 {
		need |= permWrite
	}
	for _, k := range s.keys {
		if k.perm&need == need && k.match(key) {
			return true
		}
	}
	return false
}

// allKeyAccess reports whether the selector gives the access flags ask for
// to every key: allkeys, or a "*" pattern with that permission.
func (s *selector) allKeyAccess(flags command.KeyFlag) bool {
	if s.allKeys {
		return true
	}
	need := uint8(0)
	if flags&command.KeyAccess != 0 {
		need |= permRead
	}
	if flags&(command.KeyInsert|command.KeyDelete|command.KeyUpdate) != 0 {
		need |= permWrite
	}
	for _, k := range s.keys {
		if k.perm&need == need && k.pattern == "*" {
			return true
		}
	}
	return false
}

// channelAllowed checks a channel against patterns: a channel by glob, a
// PSUBSCRIBE pattern literally (Redis's ACLCheckChannelAgainstList).
func channelAllowed(patterns []string, channel string, isPattern bool) bool {
	for _, p := range patterns {
		if isPattern && p == channel || !isPattern && glob.MatchString(p, channel, false) {
			return true
		}
	}
	return false
}
