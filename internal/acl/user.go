package acl

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/cairndb/cairn/internal/command"
)

// Reason is why a command was denied, or OK. The order is Redis's: when no
// selector allows a command, the highest reason is reported.
type Reason int

// Check results.
const (
	OK Reason = iota
	DeniedCommand
	DeniedKey
	DeniedAuth
	DeniedChannel
)

// String is the reason as ACL LOG names it.
func (r Reason) String() string {
	switch r {
	case DeniedCommand:
		return "command"
	case DeniedKey:
		return "key"
	case DeniedAuth:
		return "auth"
	case DeniedChannel:
		return "channel"
	}
	return "unknown"
}

// ErrorMessage is the text after "-NOPERM " for a denial (Redis's
// getAclErrorMessage). object is the denied key or channel; verbose names
// it, as ACL DRYRUN does.
func ErrorMessage(r Reason, user, cmdName, object string, verbose bool) string {
	switch r {
	case DeniedCommand:
		return "User " + user + " has no permissions to run the '" + cmdName + "' command"
	case DeniedKey:
		if verbose {
			return "User " + user + " has no permissions to access the '" + object + "' key"
		}
		return "No permissions to access a key"
	case DeniedChannel:
		if verbose {
			return "User " + user + " has no permissions to access the '" + object + "' channel"
		}
		return "No permissions to access a channel"
	}
	return "No permissions"
}

// User is a named user. Connections authenticated as it share it; its
// permissions are its current Profile.
type User struct {
	name string
	p    atomic.Pointer[Profile]
	// deleted is set when the user is removed (ACL DELUSER, ACL LOAD):
	// its connections must go.
	deleted atomic.Bool
}

// Name is the user's name.
func (u *User) Name() string { return u.name }

// Profile is the user's current permissions.
func (u *User) Profile() *Profile { return u.p.Load() }

// Deleted reports whether the user was removed from its registry.
func (u *User) Deleted() bool { return u.deleted.Load() }

// Profile is a user's flags, passwords and selectors at one moment. It is
// never modified once published.
type Profile struct {
	cat          *Catalog
	enabled      bool
	nopass       bool
	skipSanitize bool
	// passwords are the hex SHA-256 of the user's passwords, in order.
	passwords []string
	// selectors[0] is the root selector.
	selectors []*selector
	// unrestricted is set when a selector allows every command, key and
	// channel: checks then cost nothing.
	unrestricted bool
}

// newProfile is a new user's profile: off, no password, no permissions,
// channels as acl-pubsub-default says.
func newProfile(cat *Catalog, allChannels bool) *Profile {
	return &Profile{cat: cat, selectors: []*selector{newSelector(cat, true, allChannels)}}
}

func (p *Profile) clone() *Profile {
	n := *p
	n.passwords = slices.Clone(p.passwords)
	n.selectors = make([]*selector, len(p.selectors))
	for i, s := range p.selectors {
		n.selectors[i] = s.clone()
	}
	return &n
}

func (p *Profile) finish() *Profile {
	p.unrestricted = false
	for _, s := range p.selectors {
		if s.allCommands && s.allKeys && s.allChannels {
			p.unrestricted = true
		}
	}
	return p
}

// Enabled reports whether the user may authenticate ("on").
func (p *Profile) Enabled() bool { return p.enabled }

// NoPass reports whether any password authenticates the user.
func (p *Profile) NoPass() bool { return p.nopass }

// Unrestricted reports whether the profile allows everything.
func (p *Profile) Unrestricted() bool { return p.unrestricted }

// HashPassword is the hex SHA-256 Redis stores for a password.
func HashPassword(pass []byte) string {
	h := sha256.Sum256(pass)
	return hex.EncodeToString(h[:])
}

func validHash(h string) bool {
	if len(h) != 64 {
		return false
	}
	for i := 0; i < len(h); i++ {
		c := h[i]
		if (c < 'a' || c > 'f') && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// PasswordMatches reports whether pass authenticates a user with this
// profile (not whether the user is enabled), comparing hashes in constant
// time.
func (p *Profile) PasswordMatches(pass []byte) bool {
	if p.nopass {
		return true
	}
	h := HashPassword(pass)
	ok := false
	for _, want := range p.passwords {
		if subtle.ConstantTimeCompare([]byte(h), []byte(want)) == 1 {
			ok = true
		}
	}
	return ok
}

// RuleError is a rule ACL SETUSER (or a user line) refused.
type RuleError struct {
	Op  string
	Err error
}

func (e *RuleError) Error() string {
	return "Error in ACL SETUSER modifier '" + cstr(e.Op) + "': " + e.Err.Error()
}

func (e *RuleError) Unwrap() error { return e.Err }

// UnmatchedError reports a selector whose '(' is never closed.
type UnmatchedError struct{ Op string }

func (e *UnmatchedError) Error() string {
	return "Unmatched parenthesis in acl selector starting at '" + cstr(e.Op) + "'."
}

// mergeSelectors joins a selector spread over several arguments ("(~a",
// "+get)") into one, as Redis's ACLMergeSelectorArguments; bad is the index
// of an unclosed selector's first argument, or -1.
func mergeSelectors(ops []string) (merged []string, bad int) {
	open := -1
	var cur string
	for i, op := range ops {
		if open < 0 && len(op) > 0 && op[0] == '(' && op[len(op)-1] != ')' {
			cur, open = op, i
			continue
		}
		if open >= 0 {
			cur += " " + op
			if len(op) > 0 && op[len(op)-1] == ')' {
				open = -1
				merged = append(merged, cur)
			}
			continue
		}
		merged = append(merged, op)
	}
	if open >= 0 {
		return nil, open
	}
	return merged, -1
}

// apply applies one user rule to p in place, as Redis's ACLSetUser.
func (p *Profile) apply(op string, allChannels bool) error {
	switch {
	case op == "":
	case is(op, "on"):
		p.enabled = true
	case is(op, "off"):
		p.enabled = false
	case is(op, "skip-sanitize-payload"):
		p.skipSanitize = true
	case is(op, "sanitize-payload"):
		p.skipSanitize = false
	case is(op, "nopass"):
		p.nopass = true
		p.passwords = nil
	case is(op, "resetpass"):
		p.nopass = false
		p.passwords = nil
	case op[0] == '>' || op[0] == '#':
		h := op[1:]
		if op[0] == '>' {
			h = HashPassword([]byte(op[1:]))
		} else if !validHash(h) {
			return ErrBadHash
		}
		if !slices.Contains(p.passwords, h) {
			p.passwords = append(p.passwords, h)
		}
		p.nopass = false
	case op[0] == '<' || op[0] == '!':
		h := op[1:]
		if op[0] == '<' {
			h = HashPassword([]byte(op[1:]))
		} else if !validHash(h) {
			return ErrBadHash
		}
		i := slices.Index(p.passwords, h)
		if i < 0 {
			return ErrNoSuchPassword
		}
		p.passwords = slices.Delete(p.passwords, i, i+1)
	case op[0] == '(' && op[len(op)-1] == ')' && len(op) >= 2:
		s := newSelector(p.cat, false, allChannels)
		// Redis splits the inside like a command line; unbalanced
		// quotes leave it with no rules at all.
		words, _ := splitArgs(op[1 : len(op)-1])
		for _, w := range words {
			if err := s.apply(p.cat, w); err != nil {
				return err
			}
		}
		p.selectors = append(p.selectors, s)
	case is(op, "clearselectors"):
		p.selectors = p.selectors[:1]
	case is(op, "reset"):
		p.nopass, p.passwords = false, nil
		root := p.selectors[0]
		root.allKeys, root.keys = false, nil
		root.allChannels, root.channels = allChannels, nil
		p.enabled = false
		p.skipSanitize = false
		p.selectors = p.selectors[:1]
		_ = root.apply(p.cat, "-@all")
	default:
		return p.selectors[0].apply(p.cat, op)
	}
	return nil
}

// withRules returns a copy of p with ops applied, or the first rule's
// error; p itself never changes.
func (p *Profile) withRules(ops []string, allChannels bool) (*Profile, error) {
	merged, bad := mergeSelectors(ops)
	if bad >= 0 {
		return nil, &UnmatchedError{Op: ops[bad]}
	}
	n := p.clone()
	for _, op := range merged {
		if err := n.apply(op, allChannels); err != nil {
			return nil, &RuleError{Op: op, Err: err}
		}
	}
	return n.finish(), nil
}

// Describe is the profile in rule syntax, as ACL LIST shows it after the
// user's name.
func (p *Profile) Describe() string {
	var b strings.Builder
	if p.enabled {
		b.WriteString("on ")
	} else {
		b.WriteString("off ")
	}
	if p.nopass {
		b.WriteString("nopass ")
	}
	if p.skipSanitize {
		b.WriteString("skip-sanitize-payload ")
	} else {
		b.WriteString("sanitize-payload ")
	}
	for _, h := range p.passwords {
		b.WriteString("#" + h + " ")
	}
	for i, s := range p.selectors {
		if i == 0 {
			b.WriteString(s.describe())
		} else {
			b.WriteString(" (" + s.describe() + ")")
		}
	}
	return b.String()
}

// Flags are ACL GETUSER's flags, in Redis's order.
func (p *Profile) Flags() []string {
	f := []string{"off"}
	if p.enabled {
		f[0] = "on"
	}
	if p.nopass {
		f = append(f, "nopass")
	}
	if p.skipSanitize {
		f = append(f, "skip-sanitize-payload")
	} else {
		f = append(f, "sanitize-payload")
	}
	return f
}

// Passwords are the password hashes, in order.
func (p *Profile) Passwords() []string { return slices.Clone(p.passwords) }

// SelectorInfo is one selector as ACL GETUSER shows it.
type SelectorInfo struct {
	Commands, Keys, Channels string
}

// Selectors describes the root selector first, then the others.
func (p *Profile) Selectors() []SelectorInfo {
	out := make([]SelectorInfo, len(p.selectors))
	for i, s := range p.selectors {
		out[i] = SelectorInfo{Commands: s.describeCommands(), Keys: s.keysDescription(), Channels: s.channelsDescription()}
	}
	return out
}

// Check is Redis's ACLCheckAllUserCommandPerm: OK when a selector allows
// the command line; otherwise the most relevant denial and the argument
// (key or channel) it concerns, 0 for the command itself.
func (p *Profile) Check(cmd *Command, args [][]byte) (Reason, int) {
	return p.CheckWith(cmd, args, nil)
}

// CheckWith is Check working in sc (nil: its own).
func (p *Profile) CheckWith(cmd *Command, args [][]byte, sc *Scratch) (Reason, int) {
	if p.unrestricted {
		return OK, 0
	}
	if sc == nil {
		sc = new(Scratch)
	}
	keys := keyChecker{sc: sc}
	relevant, last := DeniedCommand, 0
	for _, s := range p.selectors {
		r, idx := s.check(cmd, args, &keys)
		if r == OK {
			return OK, 0
		}
		if r > relevant || (r == relevant && idx > last) {
			relevant, last = r, idx
		}
	}
	return relevant, last
}

// CheckKey reports whether some selector gives the access flags ask for to
// key (Redis's ACLUserCheckKeyPerm).
func (p *Profile) CheckKey(key []byte, flags KeyAccess) bool {
	if p.unrestricted {
		return true
	}
	for _, s := range p.selectors {
		if s.keyAllowed(key, flags.keyFlags()) {
			return true
		}
	}
	return false
}

// CheckCmdAllKeys reports whether some selector both allows the command
// line and gives access to every key (Redis's
// ACLUserCheckCmdWithUnrestrictedKeyAccess): what SORT's BY and GET need,
// since their patterns name keys no check saw.
func (p *Profile) CheckCmdAllKeys(cmd *Command, args [][]byte, access KeyAccess) bool {
	if p.unrestricted {
		return true
	}
	keys := keyChecker{sc: new(Scratch)}
	need := access.keyFlags()
	for _, s := range p.selectors {
		if r, _ := s.check(cmd, args, &keys); r == OK && s.allKeyAccess(need) {
			return true
		}
	}
	return false
}

// CheckChannel reports whether some selector allows the channel (or, with
// pattern, the PSUBSCRIBE pattern).
func (p *Profile) CheckChannel(channel string, pattern bool) bool {
	for _, s := range p.selectors {
		if s.allChannels || channelAllowed(s.channels, channel, pattern) {
			return true
		}
	}
	return false
}

// ChannelsRevoked reports whether p (the new profile) may deny a channel
// that old allowed, so that subscribed connections must be checked again,
// as Redis's ACLKillPubsubClientsIfNeeded decides.
func (p *Profile) ChannelsRevoked(old *Profile) bool {
	for _, s := range p.selectors {
		if s.allChannels {
			return false
		}
	}
	upcoming := p.allChannelPatterns()
	for _, s := range old.selectors {
		if s.allChannels {
			return true
		}
		for _, c := range s.channels {
			if !slices.Contains(upcoming, c) {
				return true
			}
		}
	}
	return false
}

// KeepsSubscription reports whether a subscription (a channel, or a
// pattern) survives a change to p, judged against the union of p's channel
// patterns as Redis does when it disconnects subscribers.
func (p *Profile) KeepsSubscription(channel string, pattern bool) bool {
	for _, s := range p.selectors {
		if s.allChannels {
			return true
		}
	}
	return channelAllowed(p.allChannelPatterns(), channel, pattern)
}

func (p *Profile) allChannelPatterns() []string {
	var all []string
	for _, s := range p.selectors {
		all = append(all, s.channels...)
	}
	return all
}

// KeyAccess is the access a caller wants to a key, for CheckKey.
type KeyAccess uint8

// Key accesses.
const (
	KeyRead KeyAccess = 1 << iota
	KeyWrite
)

func (a KeyAccess) keyFlags() (f command.KeyFlag) {
	if a&KeyRead != 0 {
		f |= command.KeyAccess
	}
	if a&KeyWrite != 0 {
		f |= command.KeyUpdate
	}
	return f
}
