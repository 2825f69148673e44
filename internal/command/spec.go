// Package command describes Cairn's commands as data: name, arity, flags,
// key positions, ACL categories, group and history. Everything that needs to
// know about a command — the arity check before a handler runs, COMMAND
// INFO/DOCS/GETKEYS, and later ACL and cluster routing — derives from a Spec,
// so a command is described exactly once, beside its handler.
//
// This package never executes a command and never imports the server.
package command

// Flag is a command flag, as Redis reports it in COMMAND INFO.
type Flag uint64

// Command flags. The names returned by Flag.Names are Redis's.
const (
	Write Flag = 1 << iota
	ReadOnly
	DenyOOM
	Admin
	PubSub
	NoScript
	Blocking
	Loading
	Stale
	SkipMonitor
	SkipSlowlog
	Fast
	NoAuth
	MayReplicate
	NoMandatoryKeys
	NoMulti
	AllowBusy
	// MovableKeys marks a command whose keys cannot be found from
	// First/Last/Step alone; its Spec has a KeysFunc. COMMAND INFO also
	// reports it wherever the key specs imply it (see Spec.ReportedFlags).
	MovableKeys
	// LockAll marks a command that must exclude every writer while it runs
	// (FLUSHDB, FLUSHALL, SWAPDB). It is Cairn's own and not reported.
	LockAll
	// Asking (RESTORE-ASKING) and NoAsyncLoading (SAVE, REPLICAOF, CLUSTER
	// subcommands, ...) complete Redis's set of reported flags.
	Asking
	NoAsyncLoading
	// Protected marks a command only the clients allowed by its
	// enable-*-command setting may run (DEBUG; MODULE LOAD, LOADEX and
	// UNLOAD). Redis hides it from COMMAND INFO, and so does Cairn.
	Protected
)

// Category is an ACL category (@read, @string, ...).
type Category uint64

// ACL categories, as Redis names them.
const (
	CatKeyspace Category = 1 << iota
	CatRead
	CatWrite
	CatSet
	CatSortedSet
	CatList
	CatHash
	CatString
	CatBitmap
	CatHyperLogLog
	CatGeo
	CatStream
	CatPubSub
	CatAdmin
	CatFast
	CatSlow
	CatBlocking
	CatDangerous
	CatConnection
	CatTransaction
	CatScripting
)

// KeyFlag describes how a command uses one of its keys, for COMMAND INFO's
// key specifications (Redis 7 names: RO, RW, OW, RM, access, update, insert,
// delete, not_key, incomplete, variable_flags). A spec flagged KeyNotKey
// (SPUBLISH's shard channel) is never returned as a key; KeyIncomplete and
// KeyVariableFlags send key extraction to the Spec's KeysFunc.
type KeyFlag uint32

// Key specification flags.
const (
	KeyRO KeyFlag = 1 << iota
	KeyRW
	KeyOW
	KeyRM
	KeyAccess
	KeyUpdate
	KeyInsert
	KeyDelete
	KeyNotKey
	KeyIncomplete
	KeyVariableFlags
)

// KeySpec is one Redis 7 key specification, as COMMAND INFO reports it: a
// BeginSearch step that finds where a run of keys starts and a FindKeys step
// that finds the keys from there. Argument indices count the command name as
// 0. Build the two steps with IndexSearch / KeywordSearch / UnknownSearch and
// RangeKeys / KeyNumKeys / UnknownKeys.
type KeySpec struct {
	// Notes is free text for humans ("notes" in COMMAND INFO), e.g. why SET's
	// key is RW although SET usually only overwrites it.
	Notes string
	Flags KeyFlag
	Begin BeginSearch
	Find  FindKeys
}

// BeginType selects how a key specification finds its first key.
type BeginType uint8

// Begin-search types. The zero value marks a KeySpec whose Begin was never
// set; Table.Add rejects it.
const (
	_ BeginType = iota
	// BeginIndex: the run starts at a fixed argument index.
	BeginIndex
	// BeginKeyword: the run starts right after a keyword (XREAD ... STREAMS).
	BeginKeyword
	// BeginUnknown: the keys cannot be located from the arguments (SORT's
	// BY/GET patterns); such a spec makes key extraction fall back to the
	// Spec's KeysFunc.
	BeginUnknown
)

// BeginSearch is the begin_search half of a KeySpec.
type BeginSearch struct {
	Type BeginType
	// Index is the first key's argument index (BeginIndex).
	Index int
	// Keyword is matched case-insensitively, scanning from argument
	// StartFrom towards the end, or, when StartFrom is negative, from
	// argument len(args)+StartFrom towards the start (BeginKeyword).
	Keyword   string
	StartFrom int
}

// FindType selects how a key specification finds its keys after the begin
// index.
type FindType uint8

// Find-keys types. The zero value marks an unset FindKeys; Table.Add rejects
// it.
const (
	_ FindType = iota
	// FindRange: keys run from the begin index to LastKey, every KeyStep.
	FindRange
	// FindKeyNum: an argument holds the number of keys (ZUNIONSTORE's numkeys).
	FindKeyNum
	// FindUnknown: the keys cannot be counted from the arguments.
	FindUnknown
)

// FindKeys is the find_keys half of a KeySpec.
type FindKeys struct {
	Type FindType
	// LastKey (FindRange) is relative to the begin index when >= 0 (0: one
	// key); a negative LastKey counts from the end of the arguments (-1: the
	// last argument). With LastKey -1, a nonzero Limit keeps only the first
	// 1/Limit of the remaining arguments (XREAD's STREAMS k1 k2 id1 id2 uses 2).
	LastKey int
	Limit   int
	// KeyNumIdx (FindKeyNum) is the offset from the begin index of the
	// argument holding the number of keys; the keys start FirstKey arguments
	// after the begin index.
	KeyNumIdx int
	FirstKey  int
	// KeyStep is the distance between keys, for both types (MSET uses 2).
	KeyStep int
}

// IndexSearch returns a begin_search that starts at argument index pos.
func IndexSearch(pos int) BeginSearch { return BeginSearch{Type: BeginIndex, Index: pos} }

// KeywordSearch returns a begin_search that starts after keyword, searched
// from argument startFrom (negative: backwards from the end).
func KeywordSearch(keyword string, startFrom int) BeginSearch {
	return BeginSearch{Type: BeginKeyword, Keyword: keyword, StartFrom: startFrom}
}

// UnknownSearch returns a begin_search of type "unknown".
func UnknownSearch() BeginSearch { return BeginSearch{Type: BeginUnknown} }

// RangeKeys returns a find_keys of type "range".
func RangeKeys(lastKey, keyStep, limit int) FindKeys {
	return FindKeys{Type: FindRange, LastKey: lastKey, KeyStep: keyStep, Limit: limit}
}

// KeyNumKeys returns a find_keys of type "keynum".
func KeyNumKeys(keyNumIdx, firstKey, keyStep int) FindKeys {
	return FindKeys{Type: FindKeyNum, KeyNumIdx: keyNumIdx, FirstKey: firstKey, KeyStep: keyStep}
}

// UnknownKeys returns a find_keys of type "unknown".
func UnknownKeys() FindKeys { return FindKeys{Type: FindUnknown} }

// ArgType is the type of a documented argument (COMMAND DOCS).
type ArgType string

// Argument types as Redis names them.
const (
	ArgString   ArgType = "string"
	ArgInteger  ArgType = "integer"
	ArgDouble   ArgType = "double"
	ArgKey      ArgType = "key"
	ArgPattern  ArgType = "pattern"
	ArgUnixTime ArgType = "unix-time"
	ArgPureTok  ArgType = "pure-token"
	ArgOneOf    ArgType = "oneof"
	ArgBlock    ArgType = "block"
)

// Arg documents one argument for COMMAND DOCS.
type Arg struct {
	Name     string
	Type     ArgType
	Token    string
	Optional bool
	Multiple bool
	// MultipleToken means the token repeats with each value (SORT's
	// GET p1 GET p2), not once before all of them.
	MultipleToken bool
	// KeySpecIndex links a key argument to Spec.KeySpecs; it is always
	// reported for ArgKey. A non-key argument that still names keys (SORT's
	// BY and GET patterns) links with a KeySpecIndex above 0.
	KeySpecIndex    int
	Since           string
	DeprecatedSince string
	// DisplayText is how a client shows the argument in place of its name
	// (Redis 7.2's "display_text", e.g. "ip:port" for CLIENT KILL's
	// old-format); empty when the name serves.
	DisplayText string
	Args        []Arg
}

// DocFlag is a documentation flag of COMMAND DOCS.
type DocFlag uint8

// Documentation flags.
const (
	DocDeprecated DocFlag = 1 << iota
	DocSysCmd
)

// HistoryEntry is one line of a command's history in COMMAND DOCS.
type HistoryEntry struct {
	Since   string
	Changes string
}

// Spec is the complete description of one command or subcommand.
type Spec struct {
	// Name is lower case; a subcommand's Name is "parent|sub".
	Name string
	// Arity follows Redis: N means exactly N arguments including the name,
	// -N means at least N.
	Arity int
	Flags Flag
	// First, Last and Step are Redis's legacy key range (1-based argument
	// indices; Last -1 means the last argument). All zero: derived from
	// KeySpecs the way Redis derives it (see KeyRange).
	First, Last, Step int
	// ACL holds the command's own categories; Categories adds the ones
	// Redis implies from Flags (@write, @read, @fast or @slow, ...).
	ACL        Category
	Group      string
	Since      string
	Summary    string
	Complexity string
	KeySpecs   []KeySpec
	Args       []Arg
	// Tips are Redis's command tips ("nondeterministic_output", ...).
	Tips []string
	// KeysFunc finds the key argument indices (args[0] is the command name)
	// where KeySpecs cannot: specs of unknown type, incomplete or
	// variable-flag specs, and malformed arguments. It returns nil when the
	// arguments are malformed. Like Redis's getkeys_proc, it is consulted
	// when the key specs fail or carry KeyVariableFlags (see KeyIndices).
	KeysFunc func(args [][]byte) []int
	// KeyFlagsFunc gives, for a key spec flagged KeyVariableFlags, the
	// flags this call uses the spec's keys with (SET uses its key RW with
	// GET and OW without), as Redis's getkeys_proc reports them to COMMAND
	// GETKEYSANDFLAGS. spec indexes KeySpecs. Nil reports the spec's flags.
	KeyFlagsFunc func(args [][]byte, spec int) KeyFlag
	// KeysFuncFlags, when set, gives the flags of each key KeysFunc found
	// (keys[i] at args[keys[i]]), as a getkeys_proc that sets them (SORT's)
	// reports them to COMMAND GETKEYSANDFLAGS. Nil reports no flags.
	KeysFuncFlags func(args [][]byte, keys []int) []KeyFlag
	// Subcommands, for container commands such as CONFIG and CLIENT.
	Subcommands []*Spec
	// DocFlags, DeprecatedSince, ReplacedBy and History complete COMMAND
	// DOCS.
	DocFlags        DocFlag
	DeprecatedSince string
	ReplacedBy      string
	History         []HistoryEntry
}
