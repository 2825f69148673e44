package acl

import (
	_ "embed"
	"sort"
	"strings"

	"github.com/cairndb/cairn/internal/command"
)

// Command is a command or subcommand as ACL sees it: its id in the users'
// command bitsets, its categories and where its channels are.
type Command struct {
	ID   int
	Name string // full lower-case name: "get", "config|get"
	// Spec is nil for a command of Redis that Cairn does not implement:
	// rules may name it (Catalog), no command line ever runs it.
	Spec *command.Spec
	// Cats are the categories rules select it by, the implied ones
	// included (command.Spec.Categories).
	Cats   command.Category
	Parent *Command
	Subs   []*Command
	noAuth bool
	// hasKeys is set when the command can name keys at all.
	hasKeys bool
	// Channels: arguments chanStart.. (chanCount of them, -1: all the
	// rest) are channels, checked when chanCheck is set (publishing and
	// subscribing; unsubscribing is always allowed); chanPattern marks
	// PSUBSCRIBE's patterns, matched literally against the user's.
	chanStart, chanCount int
	chanCheck            bool
	chanPattern          bool
}

// channelArgs says which commands take channels, as Redis's
// commands_with_channels table does.
var channelArgs = map[string]struct {
	start, count   int
	check, pattern bool
}{
	"subscribe":    {1, -1, true, false},
	"ssubscribe":   {1, -1, true, false},
	"psubscribe":   {1, -1, true, true},
	"unsubscribe":  {1, -1, false, false},
	"sunsubscribe": {1, -1, false, false},
	"punsubscribe": {1, -1, false, true},
	"publish":      {1, 1, true, false},
	"spublish":     {1, 1, true, false},
}

// Catalog numbers the commands of a command table for ACL. It is built once
// at start and read-only after.
//
// It also numbers every other command and subcommand of Redis 7.2
// (redis_commands.txt), with no spec and no categories, so that rules may
// name them as in Redis: an aclfile's "-debug" or "+cluster|info" loads and
// is shown back as given. Rules are kept by name (the rules text that ACL
// LIST shows, and that ACL SAVE and CONFIG REWRITE write) and applied by
// name when a catalog is built, so once Cairn implements such a command the
// same rule, loaded again at start, governs it. A name Redis does not know
// stays an error.
type Catalog struct {
	cmds   []*Command // by ID
	top    []*Command // top-level: the specs' by name, then Redis's others
	byName map[string]*Command
	bySpec map[*command.Spec]*Command
}

// NewCatalog numbers specs (top-level commands, with their subcommands) in
// name order.
func NewCatalog(specs []*command.Spec) *Catalog {
	sorted := append([]*command.Spec(nil), specs...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Name < sorted[j].Name })
	c := &Catalog{byName: map[string]*Command{}, bySpec: map[*command.Spec]*Command{}}
	add := func(s *command.Spec, parent *Command) *Command {
		cmd := &Command{ID: len(c.cmds), Name: s.Name, Spec: s, Cats: s.Categories(), Parent: parent,
			noAuth: s.Flags&command.NoAuth != 0, hasKeys: hasKeys(s)}
		if ch, ok := channelArgs[s.Name]; ok {
			cmd.chanStart, cmd.chanCount, cmd.chanCheck, cmd.chanPattern = ch.start, ch.count, ch.check, ch.pattern
		}
		c.cmds = append(c.cmds, cmd)
		c.byName[s.Name] = cmd
		c.bySpec[s] = cmd
		return cmd
	}
	for _, s := range sorted {
		cmd := add(s, nil)
		c.top = append(c.top, cmd)
		for _, sub := range s.Subcommands {
			cmd.Subs = append(cmd.Subs, add(sub, cmd))
		}
	}
	c.addRedisNames()
	return c
}

//go:embed redis_commands.txt
var redisCommandsText string

// addRedisNames numbers the Redis commands and subcommands the specs left
// out. A container comes before its subcommands in the file's order, so a
// missing subcommand finds its parent, implemented or not, and a rule on
// the container reaches it (changePerm).
func (c *Catalog) addRedisNames() {
	for _, name := range strings.Split(redisCommandsText, "\n") {
		if name == "" || name[0] == '#' || c.byName[name] != nil {
			continue
		}
		cmd := &Command{ID: len(c.cmds), Name: name}
		if i := strings.IndexByte(name, '|'); i >= 0 {
			parent := c.byName[name[:i]]
			if parent == nil {
				panic("acl: redis_commands.txt lists " + name + " before its container")
			}
			cmd.Parent = parent
			parent.Subs = append(parent.Subs, cmd)
		} else {
			c.top = append(c.top, cmd)
		}
		c.cmds = append(c.cmds, cmd)
		c.byName[name] = cmd
	}
}

// hasKeys reports whether a command may name keys: Redis's
// doesCommandHaveKeys (a getkeys function, or a key spec that is a key).
func hasKeys(s *command.Spec) bool {
	if s.KeysFunc != nil || s.First > 0 {
		return true
	}
	for _, ks := range s.KeySpecs {
		if ks.Flags&command.KeyNotKey == 0 {
			return true
		}
	}
	return false
}

// Len is the number of commands and subcommands.
func (c *Catalog) Len() int { return len(c.cmds) }

// BySpec returns the command of a spec, or nil.
func (c *Catalog) BySpec(s *command.Spec) *Command { return c.bySpec[s] }

// Lookup finds a command by the name a rule gives it ("get", "config|get"),
// case-insensitively, as Redis's ACLLookupCommand: a name with more than one
// '|', or a subcommand of a command that has none, is no command.
func (c *Catalog) Lookup(name string) *Command {
	name = asciiLower(cstr(name))
	if strings.Count(name, "|") > 1 {
		return nil
	}
	return c.byName[name]
}

// InCategory lists the full names of the commands and subcommands in cat,
// as ACL CAT <category> does.
func (c *Catalog) InCategory(cat command.Category) []string {
	var out []string
	for _, cmd := range c.cmds {
		if cmd.Cats&cat != 0 {
			out = append(out, cmd.Name)
		}
	}
	return out
}

// Categories lists every category name, in Redis's order (ACL CAT).
func Categories() []string {
	out := make([]string, len(categoryOrder))
	for i, c := range categoryOrder {
		out[i] = c.name
	}
	return out
}

// categoryOrder is Redis's ACLCommandCategories table.
var categoryOrder = []struct {
	name string
	cat  command.Category
}{
	{"keyspace", command.CatKeyspace}, {"read", command.CatRead}, {"write", command.CatWrite},
	{"set", command.CatSet}, {"sortedset", command.CatSortedSet}, {"list", command.CatList},
	{"hash", command.CatHash}, {"string", command.CatString}, {"bitmap", command.CatBitmap},
	{"hyperloglog", command.CatHyperLogLog}, {"geo", command.CatGeo}, {"stream", command.CatStream},
	{"pubsub", command.CatPubSub}, {"admin", command.CatAdmin}, {"fast", command.CatFast},
	{"slow", command.CatSlow}, {"blocking", command.CatBlocking}, {"dangerous", command.CatDangerous},
	{"connection", command.CatConnection}, {"transaction", command.CatTransaction},
	{"scripting", command.CatScripting},
}

// CategoryByName returns the category called name (without '@'),
// case-insensitively; ok is false for none.
func CategoryByName(name string) (command.Category, bool) {
	for _, c := range categoryOrder {
		if is(name, c.name) {
			return c.cat, true
		}
	}
	return 0, false
}
