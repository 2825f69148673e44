package command

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/cairndb/cairn/internal/glob"
)

// maxNameLen bounds a command's full name ("cluster|count-failure-reports"
// is Redis's longest at 29) so that lookups can lower-case into a stack
// buffer. Add rejects longer names, so a longer lookup cannot match.
const maxNameLen = 64

// Errors of COMMAND GETKEYS, GETKEYSANDFLAGS and LIST, worded as Redis
// replies them.
var (
	ErrInvalidCommand  = errors.New("ERR Invalid command specified")
	ErrInvalidArgCount = errors.New("ERR Invalid number of arguments specified for command")
	ErrNoKeyArgs       = errors.New("ERR The command has no key arguments")
	ErrInvalidArgs     = errors.New("ERR Invalid arguments specified for command")
	ErrSyntax          = errors.New("ERR syntax error")
)

// Table is the set of commands a server knows. It is filled with Add while
// the server is built and only read afterwards; it has no lock, so Add must
// not run concurrently with anything else.
type Table struct {
	cmds map[string]*Spec
	// subs holds every subcommand under its full name ("config|get").
	subs   map[string]*Spec
	sorted []*Spec
	// disabled are the commands rename-command took every name from.
	disabled []*Spec
}

// NewTable returns an empty table.
func NewTable() *Table {
	return &Table{cmds: make(map[string]*Spec), subs: make(map[string]*Spec)}
}

// Add registers spec and its subcommands. It panics when the spec is
// malformed or a name is already taken: both are programming errors that
// must stop the server at start-up rather than misreport COMMAND output.
func (t *Table) Add(spec *Spec) {
	if spec == nil {
		panic("command: Add(nil)")
	}
	if err := checkName(spec.Name); err != nil {
		panic(fmt.Sprintf("command %q: %v", spec.Name, err))
	}
	if strings.Contains(spec.Name, "|") {
		panic(fmt.Sprintf("command %q: a top-level name cannot contain '|'", spec.Name))
	}
	if _, dup := t.cmds[spec.Name]; dup {
		panic(fmt.Sprintf("command %q: registered twice", spec.Name))
	}
	if err := checkSpec(spec); err != nil {
		panic(fmt.Sprintf("command %q: %v", spec.Name, err))
	}
	// Validate every subcommand before registering any, so a panic that a
	// caller recovers from leaves the table unchanged.
	seen := make(map[string]bool, len(spec.Subcommands))
	for _, sub := range spec.Subcommands {
		if err := checkSub(spec, sub); err != nil {
			panic(fmt.Sprintf("command %q: %v", spec.Name, err))
		}
		if seen[sub.Name] || t.subs[sub.Name] != nil {
			panic(fmt.Sprintf("command %q: subcommand %q registered twice", spec.Name, sub.Name))
		}
		seen[sub.Name] = true
	}
	t.cmds[spec.Name] = spec
	for _, sub := range spec.Subcommands {
		t.subs[sub.Name] = sub
	}
	i, _ := slices.BinarySearchFunc(t.sorted, spec.Name, func(s *Spec, name string) int {
		return strings.Compare(s.Name, name)
	})
	t.sorted = slices.Insert(t.sorted, i, spec)
}

func checkName(name string) error {
	switch {
	case name == "":
		return errors.New("empty name")
	case len(name) > maxNameLen:
		return fmt.Errorf("name longer than %d bytes", maxNameLen)
	case name != strings.ToLower(name):
		return errors.New("name must be lower case")
	}
	return nil
}

func checkSub(parent, sub *Spec) error {
	if sub == nil {
		return errors.New("nil subcommand")
	}
	if err := checkName(sub.Name); err != nil {
		return fmt.Errorf("subcommand %q: %w", sub.Name, err)
	}
	rest, ok := strings.CutPrefix(sub.Name, parent.Name+"|")
	if !ok || rest == "" || strings.Contains(rest, "|") {
		return fmt.Errorf("subcommand %q must be named %q", sub.Name, parent.Name+"|<sub>")
	}
	if len(sub.Subcommands) > 0 {
		return fmt.Errorf("subcommand %q: Redis allows one level of subcommands", sub.Name)
	}
	if err := checkSpec(sub); err != nil {
		return fmt.Errorf("subcommand %q: %w", sub.Name, err)
	}
	return nil
}

// checkSpec rejects what Redis's own tables never contain and what would
// make key extraction or COMMAND output wrong.
func checkSpec(s *Spec) error {
	if s.Arity == 0 {
		return errors.New("arity 0")
	}
	if s.First != 0 && s.Step < 1 {
		return errors.New("legacy key range without a step")
	}
	for i, ks := range s.KeySpecs {
		if err := checkKeySpec(ks); err != nil {
			return fmt.Errorf("key spec %d: %w", i, err)
		}
	}
	return checkArgs(s.Args, len(s.KeySpecs))
}

func checkKeySpec(ks KeySpec) error {
	switch ks.Begin.Type {
	case BeginIndex:
		if ks.Begin.Index < 1 {
			return errors.New("begin index below 1")
		}
	case BeginKeyword:
		if ks.Begin.Keyword == "" || ks.Begin.StartFrom == 0 {
			return errors.New("keyword search needs a keyword and a nonzero startfrom")
		}
	case BeginUnknown:
	default:
		return errors.New("begin_search not set")
	}
	switch ks.Find.Type {
	case FindRange:
		if ks.Find.KeyStep < 1 || ks.Find.Limit < 0 {
			return errors.New("range needs keystep >= 1 and limit >= 0")
		}
		if ks.Find.Limit > 0 && ks.Find.LastKey != -1 {
			return errors.New("range limit requires lastkey -1")
		}
	case FindKeyNum:
		if ks.Find.KeyStep < 1 || ks.Find.KeyNumIdx < 0 || ks.Find.FirstKey < 1 {
			return errors.New("keynum needs keystep >= 1, keynumidx >= 0 and firstkey >= 1")
		}
	case FindUnknown:
	default:
		return errors.New("find_keys not set")
	}
	return nil
}

func checkArgs(args []Arg, numSpecs int) error {
	for _, a := range args {
		if a.Name == "" || a.Type == "" {
			return fmt.Errorf("argument %q: name and type are required", a.Name)
		}
		linked := a.Type == ArgKey || a.KeySpecIndex > 0
		if linked && (a.KeySpecIndex < 0 || a.KeySpecIndex >= numSpecs) {
			return fmt.Errorf("argument %q: key spec index %d out of range", a.Name, a.KeySpecIndex)
		}
		if err := checkArgs(a.Args, numSpecs); err != nil {
			return err
		}
	}
	return nil
}

// Lookup returns the top-level command called name, case-insensitively, or
// nil. It does not allocate. Subcommands are found with LookupSub.
//
// Only ASCII letters fold, and the name is compared whole, NUL bytes
// included: "GET\x00x" is no command. Redis's command table is a dict
// that hashes the whole name and compares candidates with strcasecmp, so
// there such a name finds GET only when its hash happens to share GET's
// bucket (its seed is random per process); Cairn gives the usual answer
// every time. LookupSub and LookupFull read names the same way.
func (t *Table) Lookup(name []byte) *Spec {
	var buf [maxNameLen]byte
	key, ok := lowerInto(&buf, name)
	if !ok {
		return nil
	}
	return t.cmds[string(key)]
}

// LookupSub returns parent's subcommand called sub ("get" for CONFIG GET),
// case-insensitively, or nil. It does not allocate.
func (t *Table) LookupSub(parent *Spec, sub []byte) *Spec {
	if parent == nil || len(parent.Subcommands) == 0 {
		return nil
	}
	var buf [maxNameLen]byte
	n := copy(buf[:], parent.Name)
	if n+1+len(sub) > maxNameLen {
		return nil
	}
	buf[n] = '|'
	n++
	for _, c := range sub {
		buf[n] = lowerASCII(c)
		n++
	}
	return t.subs[string(buf[:n])]
}

// LookupFull returns the command or subcommand with the full name name
// ("get", "config|get"), case-insensitively, or nil: the names that COMMAND
// INFO and COMMAND DOCS accept. It does not allocate.
func (t *Table) LookupFull(name []byte) *Spec {
	var buf [maxNameLen]byte
	key, ok := lowerInto(&buf, name)
	if !ok {
		return nil
	}
	if slices.Contains(key, '|') {
		return t.subs[string(key)]
	}
	return t.cmds[string(key)]
}

func lowerInto(buf *[maxNameLen]byte, name []byte) ([]byte, bool) {
	if len(name) > maxNameLen {
		return nil, false
	}
	for i, c := range name {
		buf[i] = lowerASCII(c)
	}
	return buf[:len(name)], true
}

// All returns the top-level commands sorted by name. The slice is the
// caller's; the specs are shared.
func (t *Table) All() []*Spec {
	return slices.Clone(t.sorted)
}

// Original returns every top-level command sorted by name, those that
// rename-command disabled included: the commands ACL rules may name, as
// Redis's orig_commands (so "-flushall" still parses when FLUSHALL is
// renamed to "").
func (t *Table) Original() []*Spec {
	out := slices.Concat(t.sorted, t.disabled)
	slices.SortFunc(out, func(a, b *Spec) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// List returns what COMMAND LIST answers without a filter: every command in
// name order, each followed by its subcommands, as Redis lists them.
func (t *Table) List() []*Spec {
	out := make([]*Spec, 0, len(t.sorted))
	for _, s := range t.sorted {
		out = append(out, s)
		out = append(out, s.Subcommands...)
	}
	return out
}

// Len returns the number of top-level commands (COMMAND COUNT).
func (t *Table) Len() int {
	return len(t.cmds)
}

// resolve finds the spec a full command line runs, as Redis's lookupCommand
// does: a container's subcommand when there is a second argument.
func (t *Table) resolve(args [][]byte) *Spec {
	if len(args) == 0 {
		return nil
	}
	base := t.Lookup(args[0])
	if base == nil || len(args) == 1 || len(base.Subcommands) == 0 {
		return base
	}
	return t.LookupSub(base, args[1])
}

// FilterBy returns the commands and subcommands that COMMAND LIST FILTERBY
// kind arg lists, each command followed by its subcommands, commands in name
// order. kind is MODULE, ACLCAT or PATTERN in any case; anything else is
// ErrSyntax. ACLCAT takes a category name without '@' and, like Redis,
// matches nothing when the category does not exist; PATTERN is a
// case-insensitive glob over full names ("config|*"). Cairn has no modules,
// so MODULE matches nothing. Like Redis, which compares them with
// strcasecmp, kind and the category name end at a NUL byte (see
// equalFoldASCII); the pattern is matched whole, as stringmatchlen reads it.
func (t *Table) FilterBy(kind, arg string) ([]*Spec, error) {
	var match func(*Spec) bool
	var name []byte
	switch {
	case equalFoldASCII(kind, "module"):
		return nil, nil
	case equalFoldASCII(kind, "aclcat"):
		cat, ok := CategoryByName(arg)
		if !ok {
			return nil, nil
		}
		match = func(s *Spec) bool { return s.Categories()&cat != 0 }
	case equalFoldASCII(kind, "pattern"):
		pattern := []byte(arg)
		match = func(s *Spec) bool {
			name = append(name[:0], s.Name...)
			return glob.Match(pattern, name, true)
		}
	default:
		return nil, ErrSyntax
	}
	var out []*Spec
	for _, s := range t.sorted {
		if match(s) {
			out = append(out, s)
		}
		for _, sub := range s.Subcommands {
			if match(sub) {
				out = append(out, sub)
			}
		}
	}
	return out, nil
}

// GetKeys answers COMMAND GETKEYS for the full command line args (args[0]
// is the command's name): the indices in args of its keys, or Redis's error.
// A command flagged NoMandatoryKeys may answer an empty, non-nil slice.
func GetKeys(t *Table, args [][]byte) ([]int, error) {
	s, err := t.keysCommand(args)
	if err != nil {
		return nil, err
	}
	keys := s.KeyIndices(args)
	if len(keys) == 0 {
		return noKeysFound[int](s)
	}
	return keys, nil
}

// GetKeysAndFlags answers COMMAND GETKEYSANDFLAGS as GetKeys answers
// COMMAND GETKEYS, each key with its flags (see Spec.KeyRefs).
func GetKeysAndFlags(t *Table, args [][]byte) ([]KeyRef, error) {
	s, err := t.keysCommand(args)
	if err != nil {
		return nil, err
	}
	refs := s.KeyRefs(args)
	if len(refs) == 0 {
		return noKeysFound[KeyRef](s)
	}
	return refs, nil
}

// keysCommand finds the command a COMMAND GETKEYS line runs and checks it
// in Redis's order: known, has keys at all, arity.
func (t *Table) keysCommand(args [][]byte) (*Spec, error) {
	s := t.resolve(args)
	switch {
	case s == nil:
		return nil, ErrInvalidCommand
	case !s.hasKeys():
		return nil, ErrNoKeyArgs
	case !s.CheckArity(len(args)):
		return nil, ErrInvalidArgCount
	}
	return s, nil
}

// noKeysFound is Redis's answer when a command line has no keys: an empty
// list for a command whose keys are optional, an error otherwise.
func noKeysFound[T any](s *Spec) ([]T, error) {
	if s.Flags&NoMandatoryKeys != 0 {
		return []T{}, nil
	}
	return nil, ErrInvalidArgs
}
