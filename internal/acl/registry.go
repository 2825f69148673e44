package acl

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// DefaultUserName is the user every connection starts as.
const DefaultUserName = "default"

// Registry is the set of users. Reads of a user's permissions go through
// User.Profile and never lock; changes are serialized here.
type Registry struct {
	cat *Catalog
	mu  sync.Mutex
	// users maps names to users; def is users["default"], which is never
	// deleted (ACL LOAD copies the new default's profile into it).
	users map[string]*User
	def   *User
	// allChannels is acl-pubsub-default: whether a new selector starts
	// with allchannels.
	allChannels atomic.Bool
}

// NewRegistry returns a registry holding only the default user, which may
// run everything without a password.
func NewRegistry(cat *Catalog) *Registry {
	r := &Registry{cat: cat, users: map[string]*User{}}
	r.def = &User{name: DefaultUserName}
	r.def.p.Store(defaultProfile(cat))
	r.users[DefaultUserName] = r.def
	return r
}

func defaultProfile(cat *Catalog) *Profile {
	p, err := newProfile(cat, false).withRules([]string{"+@all", "~*", "&*", "on", "nopass"}, false)
	if err != nil {
		panic("acl: default user: " + err.Error())
	}
	return p
}

// Superuser returns a user outside the registry that may run everything
// with no password, for connections the server runs itself (a replica's
// link to its master), which Redis runs with no user at all. Its name is
// what CLIENT LIST shows for them in Redis, "(superuser)".
func (r *Registry) Superuser() *User {
	u := &User{name: "(superuser)"}
	u.p.Store(defaultProfile(r.cat))
	return u
}

// Catalog is the command catalog the registry's rules refer to.
func (r *Registry) Catalog() *Catalog { return r.cat }

// SetPubsubDefault sets acl-pubsub-default: true for allchannels, false
// for resetchannels. It affects users and selectors created afterwards.
func (r *Registry) SetPubsubDefault(allChannels bool) { r.allChannels.Store(allChannels) }

// Default is the default user.
func (r *Registry) Default() *User { return r.def }

// Get returns the user called name, or nil.
func (r *Registry) Get(name string) *User {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.users[name]
}

// Authenticate returns the user if name and pass authenticate it: it
// exists, is on, and pass is one of its passwords or it has nopass.
func (r *Registry) Authenticate(name string, pass []byte) (*User, bool) {
	u := r.Get(name)
	if u == nil {
		return nil, false
	}
	p := u.Profile()
	if !p.enabled || !p.PasswordMatches(pass) {
		return nil, false
	}
	return u, true
}

// ErrUsernameSpaces is ACL SETUSER's error for a name with spaces.
var ErrUsernameSpaces = errors.New("Usernames can't contain spaces or null characters")

// SetUser applies rules to the user called name, creating it when absent.
// Either every rule applies or none does. It returns the user, and its
// profile before the change (nil for a new user).
func (r *Registry) SetUser(name string, ops []string) (u *User, old *Profile, err error) {
	if hasSpaces(name) {
		return nil, nil, ErrUsernameSpaces
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	u = r.users[name]
	base := newProfile(r.cat, r.allChannels.Load())
	if u != nil {
		old = u.Profile()
		base = old
	}
	p, err := base.withRules(ops, r.allChannels.Load())
	if err != nil {
		return nil, nil, err
	}
	if u == nil {
		u = &User{name: name}
		r.users[name] = u
	}
	u.p.Store(p)
	return u, old, nil
}

// ErrDeleteDefault is ACL DELUSER's error for the default user.
var ErrDeleteDefault = errors.New("The 'default' user cannot be removed")

// DelUsers removes the named users and returns those that existed; their
// connections must be closed. The default user cannot be removed.
func (r *Registry) DelUsers(names []string) ([]*User, error) {
	for _, n := range names {
		// Redis compares with strcmp: "default\x00x" is the default user.
		if cstr(n) == DefaultUserName {
			return nil, ErrDeleteDefault
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	var gone []*User
	for _, n := range names {
		if u := r.users[n]; u != nil {
			delete(r.users, n)
			u.deleted.Store(true)
			gone = append(gone, u)
		}
	}
	return gone, nil
}

// Names lists the users' names in order.
func (r *Registry) Names() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	names := make([]string, 0, len(r.users))
	for n := range r.users {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// List is ACL LIST: each user as a "user <name> <rules>" line, by name.
func (r *Registry) List() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.listLocked()
}

func (r *Registry) listLocked() []string {
	names := make([]string, 0, len(r.users))
	for n := range r.users {
		names = append(names, n)
	}
	sort.Strings(names)
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = "user " + n + " " + r.users[n].Profile().Describe()
	}
	return out
}

// SetDefaultPassword makes pass the default user's only password, or, for
// "", gives it nopass: how requirepass sets the default user.
func (r *Registry) SetDefaultPassword(pass string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	ops := []string{"resetpass", "nopass"}
	if pass != "" {
		ops[1] = ">" + pass
	}
	p, err := r.def.Profile().withRules(ops, r.allChannels.Load())
	if err != nil {
		panic("acl: requirepass: " + err.Error())
	}
	r.def.p.Store(p)
}

// LoadConfigured applies the config file's user lines (each the words after
// "user": the name, then rules), as Redis loads them at start. It stops at
// the first error, which names the rule and the user.
func (r *Registry) LoadConfigured(lines [][]string) error {
	seen := map[string]bool{}
	for _, words := range lines {
		if len(words) == 0 {
			continue
		}
		name := words[0]
		if seen[name] {
			return fmt.Errorf("Error in user declaration '%s': %s", name, ErrDuplicateUser)
		}
		seen[name] = true
		if hasSpaces(name) {
			return errors.New("Spaces not allowed in ACL usernames")
		}
		ops := words[1:]
		if name == DefaultUserName {
			ops = append([]string{"reset"}, ops...)
		}
		if _, _, err := r.SetUser(name, ops); err != nil {
			var re *RuleError
			if errors.As(err, &re) {
				return fmt.Errorf("Error in user declaration '%s': %s", re.Op, re.Err)
			}
			return fmt.Errorf("Error in user declaration '%s': %s", name, err)
		}
	}
	return nil
}

// ParseFile reads aclfile text into user definitions, checking every line
// as Redis's ACLLoadFromFile does; the error lists every problem found, each
// with the file name and line number. Nothing is applied.
func (r *Registry) ParseFile(text, filename string) (map[string]*Profile, error) {
	var errs strings.Builder
	users := map[string]*Profile{}
	allCh := r.allChannels.Load()
	for i, line := range strings.Split(text, "\n") {
		num := i + 1
		line = strings.Trim(line, " \t\r\n")
		if line == "" {
			continue
		}
		// Redis splits aclfile lines on single spaces, without quoting.
		argv := strings.Split(line, " ")
		if argv[0] != "user" || len(argv) < 2 {
			fmt.Fprintf(&errs, "%s:%d should start with user keyword followed by the username. ", filename, num)
			continue
		}
		name := argv[1]
		if hasSpaces(name) {
			fmt.Fprintf(&errs, "'%s:%d: username '%s' contains invalid characters. ", filename, num, name)
			continue
		}
		if _, dup := users[name]; dup {
			fmt.Fprintf(&errs, "WARNING: Duplicate user '%s' found on line %d. ", name, num)
			continue
		}
		p := newProfile(r.cat, allCh)
		users[name] = p
		merged, bad := mergeSelectors(argv[2:])
		if bad >= 0 {
			fmt.Fprintf(&errs, "%s:%d: Unmatched parenthesis in selector definition.", filename, num)
		}
		syntax := false
		for _, op := range merged {
			op = strings.Trim(op, "\t\r\n")
			if err := p.apply(op, allCh); err != nil {
				if errors.Is(err, ErrUnknownCommand) {
					fmt.Fprintf(&errs, "%s:%d: Error in applying operation '%s': %s. ", filename, num, op, err)
				} else if !syntax {
					fmt.Fprintf(&errs, "%s:%d: %s. ", filename, num, err)
					syntax = true
				}
			}
		}
		p.finish()
	}
	if errs.Len() > 0 {
		errs.WriteString("WARNING: ACL errors detected, no change to the previously active ACL rules was performed")
		return nil, errors.New(errs.String())
	}
	return users, nil
}

// LoadFile replaces every user with the aclfile's, as ACL LOAD does, or
// changes nothing when the file has an error. The default user keeps its
// identity (its connections stay) and takes the file's profile, or the
// initial one if the file has none. Every other former user is returned:
// its connections must be closed.
func (r *Registry) LoadFile(path string) ([]*User, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("Error loading ACLs, opening file '%s': %s", path, errText(err))
	}
	users, err := r.ParseFile(string(data), path)
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	var gone []*User
	for n, u := range r.users {
		if n != DefaultUserName {
			u.deleted.Store(true)
			gone = append(gone, u)
		}
	}
	r.users = map[string]*User{DefaultUserName: r.def}
	for n, p := range users {
		if n == DefaultUserName {
			r.def.p.Store(p)
			continue
		}
		u := &User{name: n}
		u.p.Store(p)
		r.users[n] = u
	}
	if users[DefaultUserName] == nil {
		r.def.p.Store(defaultProfile(r.cat))
	}
	return gone, nil
}

// errText is an OS error's message without Go's operation and path, like
// C's strerror.
func errText(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	s := err.Error()
	if s != "" {
		s = strings.ToUpper(s[:1]) + s[1:]
	}
	return s
}

// Format is the aclfile text for the current users, as ACL SAVE writes it.
func (r *Registry) Format() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var b strings.Builder
	for _, l := range r.listLocked() {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	return b.String()
}

// SaveFile writes the users to path atomically: a temporary file beside it,
// synced, renamed over it, and the directory synced.
func (r *Registry) SaveFile(path string) error {
	text := r.Format()
	tmp := path + ".tmp-" + strconv.Itoa(os.Getpid()) + "-" + strconv.FormatInt(time.Now().UnixMilli(), 10)
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return fmt.Errorf("opening temp ACL file for ACL SAVE: %w", err)
	}
	ok := false
	defer func() {
		if !ok {
			_ = f.Close()
			_ = os.Remove(tmp)
		}
	}()
	if _, err := f.WriteString(text); err != nil {
		return fmt.Errorf("writing ACL file for ACL SAVE: %w", err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("syncing ACL file for ACL SAVE: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("writing ACL file for ACL SAVE: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		_ = os.Remove(tmp)
		ok = true
		return fmt.Errorf("renaming ACL file for ACL SAVE: %w", err)
	}
	ok = true
	if d, err := os.Open(filepath.Dir(path)); err == nil {
		defer d.Close()
		if err := d.Sync(); err != nil {
			return fmt.Errorf("syncing ACL directory for ACL SAVE: %w", err)
		}
	}
	return nil
}

// GenPass returns bits random bits as hex, rounded up to whole hex digits
// (ACL GENPASS). bits must be 1..4096.
func GenPass(bits int) (string, error) {
	if bits <= 0 || bits > MaxGenPassBits {
		return "", fmt.Errorf("ACL GENPASS argument must be the number of bits for the output password, a positive number up to %d", MaxGenPassBits)
	}
	chars := (bits + 3) / 4
	buf := make([]byte, (chars+1)/2)
	if _, err := rand.Read(buf); err != nil {
		return "", fmt.Errorf("acl: random source: %w", err)
	}
	return hex.EncodeToString(buf)[:chars], nil
}

// MaxGenPassBits is the most bits ACL GENPASS makes.
const MaxGenPassBits = 4096
