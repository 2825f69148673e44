package config

import (
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/cairndb/cairn/internal/notify"
	"github.com/cairndb/cairn/internal/rconv"
)

// kind is how a setting's words are parsed and its value shown.
type kind uint8

const (
	kindInt    kind = iota // a decimal integer, parsed like Redis's string2ll
	kindMemory             // a byte count with an optional unit, like memtoull
	kindEnum               // one of a fixed list of names, case-insensitive
	kindString             // any single word
	kindList               // any number of words (bind)
	kindBool               // yes or no, case-insensitive
)

// value is a setting's parsed value; which field is used depends on the kind
// (enums keep their index in n).
type value struct {
	n    int64
	s    string
	list []string
}

// setting describes one configuration parameter. The table of settings is
// fixed at compile time; the values live in Config.
type setting struct {
	name string
	// alias is a second name the setting answers to, as Redis 7 keeps the
	// ziplist names of the listpack limits ("" for none).
	alias   string
	kind    kind
	mutable bool
	// min and max bound kindInt and kindMemory values, as Redis's
	// numericBoundaryCheck does.
	min, max int64
	// clampMin and clampMax, when clampMax > 0, pull an accepted value into
	// range instead of refusing it: Redis treats hz as a hint this way.
	clampMin, clampMax int64
	enum               []string
	// check refuses a string value Redis would accept but Cairn cannot use;
	// it returns the reason, or "".
	check func(string) string
	// checkList validates a kindList value's words, returning the reason
	// for refusing them or "".
	checkList func([]string) string
	// merge combines a kindList value being set with the current one, for
	// a setting whose words update parts of it (client-output-buffer-limit
	// sets only the classes it names); nil replaces the value.
	merge func(cur, next []string) []string
	// showWord formats one word of a kindList value for CONFIG GET when
	// Redis shows something other than what was written.
	showWord func(string) string
	// show formats a string value for CONFIG GET when Redis reports
	// something other than what was written (dir).
	show func(string) string
	def  value

	// ignored, when set, says why Cairn accepts this Redis setting but does
	// not apply it (see ignored.go): its value is kept, shown by CONFIG GET
	// and written by CONFIG REWRITE, and a start-up that sets it logs so.
	ignored string
	// honoured reports that a value of an ignored setting is what Cairn
	// does anyway (appendonly yes, save ""), so setting it is not reported.
	honoured func(value) bool
	// accumulate makes the repeated lines of one file add to the value
	// rather than replace it, as Redis's save lines do; the first line of
	// a load replaces the default.
	accumulate bool
	// protected marks a setting Redis lets CONFIG SET change only when
	// enable-protected-configs allows it (dir, dbfilename).
	protected bool
	// refuse, when set, turns down a parsed value that Cairn cannot honour
	// and must not ignore (cluster-enabled yes), returning the reason.
	refuse func(value) string

	// At most one of these is set, by kind; a setting with none keeps its
	// value in Config.extra (the ignored settings).
	num  func(*Config) *atomic.Int64
	str  func(*Config) *atomic.Pointer[string]
	list func(*Config) *atomic.Pointer[[]string]
}

// Redis's CONFIG_BINDADDR_MAX.
const maxBindAddrs = 16

// Enum names, in Redis's order: the order shows in error messages.
var (
	appendFsyncNames = []string{"everysec", "always", "no"}
	logLevelNames    = []string{"debug", "verbose", "notice", "warning", "nothing"}
	// Redis's acl_pubsub_default_enum, in its order.
	aclPubsubDefaultNames = []string{"allchannels", "resetchannels"}
	// Redis's tls_auth_clients_enum, in its order.
	tlsAuthClientsNames = []string{"no", "yes", "optional"}
)

// Indexes into appendFsyncNames and logLevelNames.
const (
	fsyncEverySec = 0
	logNotice     = 2
)

// settings is every parameter Cairn knows, sorted by name: CONFIG GET
// reports matches in this order, which keeps its reply stable. It joins the
// settings Cairn applies with the Redis settings it accepts and ignores.
var settings = sortedSettings(applied, ignoredSettings)

// applied is every parameter Cairn applies.
var applied = []*setting{
	{
		// Whether a new ACL user or selector may use every pub/sub
		// channel (allchannels) or none (resetchannels, Redis 7's default).
		name: "acl-pubsub-default", kind: kindEnum, mutable: true,
		enum: aclPubsubDefaultNames, def: value{n: 1},
		num: func(c *Config) *atomic.Int64 { return &c.aclPubsubDefault },
	},
	{
		name: "aclfile", kind: kindString,
		str: func(c *Config) *atomic.Pointer[string] { return &c.aclFile },
	},
	{
		name: "acllog-max-len", kind: kindInt, mutable: true,
		min: 0, max: math.MaxInt64, def: value{n: 128},
		num: func(c *Config) *atomic.Int64 { return &c.aclLogMaxLen },
	},
	{
		name: "appendfsync", kind: kindEnum, mutable: true,
		enum: appendFsyncNames, def: value{n: fsyncEverySec},
		num: func(c *Config) *atomic.Int64 { return &c.appendFsync },
	},
	{
		// Reported so that tools asking Redis whether it persists (as
		// redis-benchmark does) get a true answer: every write goes to the
		// engine's log. "no" is accepted, kept and reported as ignored.
		name: "appendonly", kind: kindBool, mutable: true, def: value{n: 1},
		ignored:  "Cairn logs every write to Pebble's write-ahead log; it cannot be turned off",
		honoured: func(v value) bool { return v.n == 1 },
		num:      func(c *Config) *atomic.Int64 { return &c.appendOnly },
	},
	{
		// Changed live by rebinding the listeners (see OnApply).
		name: "bind", kind: kindList, mutable: true,
		def: value{list: []string{"127.0.0.1"}},
		checkList: func(words []string) string {
			if len(words) > maxBindAddrs {
				return "Too many bind addresses specified."
			}
			return ""
		},
		list: func(c *Config) *atomic.Pointer[[]string] { return &c.bind },
	},
	{
		// How long a script may run before other clients get BUSY, in
		// milliseconds (0: at once).
		name: "busy-reply-threshold", alias: "lua-time-limit", kind: kindInt, mutable: true,
		min: 0, max: math.MaxInt64, def: value{n: 5000},
		num: func(c *Config) *atomic.Int64 { return &c.busyReplyThreshold },
	},
	{
		// Not a Redis setting: the size of Pebble's block cache.
		name: "cache-size", kind: kindMemory,
		min: 0, max: math.MaxInt64, def: value{n: 1 << 30},
		num: func(c *Config) *atomic.Int64 { return &c.cacheSize },
	},
	{
		// Per client class (normal, slave, pubsub): the hard limit, the
		// soft limit and how long the soft limit may be exceeded, in
		// seconds. A value names the classes it changes; the others stay.
		name: "client-output-buffer-limit", kind: kindList, mutable: true,
		def:       value{list: strings.Fields(defaultOutputBufferLimits)},
		checkList: checkOutputBufferLimits,
		merge:     mergeOutputBufferLimits,
		list:      func(c *Config) *atomic.Pointer[[]string] { return &c.outputBufferLimits },
	},
	{
		// The most memory one client's request may hold before it is
		// complete, counting each argument's bookkeeping as well as its
		// bytes; a client past it is closed, as in Redis.
		name: "client-query-buffer-limit", kind: kindMemory, mutable: true,
		min: 1 << 20, max: math.MaxInt64, def: value{n: 1 << 30},
		num: func(c *Config) *atomic.Int64 { return &c.queryBufLimit },
	},
	{
		// Redis allows up to INT_MAX; Cairn's keys hold the database
		// number in 16 bits.
		name: "databases", kind: kindInt,
		min: 1, max: 1 << 16, def: value{n: 16},
		num: func(c *Config) *atomic.Int64 { return &c.databases },
	},
	{
		// Redis chdirs here and reports getcwd; Cairn keeps the path for
		// Pebble and reports it made absolute, which is what Redis shows.
		name: "dir", kind: kindString, protected: true,
		def: value{s: "./cairn-data"},
		check: func(s string) string {
			if s == "" {
				return "dir can't be empty"
			}
			return ""
		},
		show: func(s string) string {
			if abs, err := filepath.Abs(s); err == nil {
				return abs
			}
			return s
		},
		str: func(c *Config) *atomic.Pointer[string] { return &c.dir },
	},
	{
		// The RDB file SAVE and BGSAVE write in dir.
		name: "dbfilename", kind: kindString, protected: true,
		def: value{s: "dump.rdb"},
		check: func(s string) string {
			if s == "" || strings.ContainsRune(s, '/') {
				return "dbfilename can't be a path, just a filename"
			}
			return ""
		},
		str: func(c *Config) *atomic.Pointer[string] { return &c.dbFilename },
	},
	{
		// The encoding limits below decide what OBJECT ENCODING reports for
		// a collection, which ones HSCAN, SSCAN and ZSCAN return whole in
		// one call, and whether a sorted set keeps a score's -0, as they do
		// in Redis. Cairn stores every collection as records whatever its
		// size, so they change no storage.
		name: "hash-max-listpack-entries", alias: "hash-max-ziplist-entries", kind: kindInt, mutable: true,
		min: 0, max: math.MaxInt64, def: value{n: 512},
		num: func(c *Config) *atomic.Int64 { return &c.hashMaxEntries },
	},
	{
		name: "hash-max-listpack-value", alias: "hash-max-ziplist-value", kind: kindMemory, mutable: true,
		min: 0, max: math.MaxInt64, def: value{n: 64},
		num: func(c *Config) *atomic.Int64 { return &c.hashMaxValue },
	},
	{
		name: "hll-sparse-max-bytes", kind: kindMemory, mutable: true,
		min: 0, max: math.MaxInt64, def: value{n: 3000},
		num: func(c *Config) *atomic.Int64 { return &c.hllSparseMaxBytes },
	},
	{
		name: "hz", kind: kindInt, mutable: true,
		min: 0, max: math.MaxInt32, clampMin: 1, clampMax: 500, def: value{n: 10},
		num: func(c *Config) *atomic.Int64 { return &c.hz },
	},
	{
		// Not a Redis setting: the memory kept for recently used keys'
		// metadata records (and small string values), in front of Pebble.
		name: "key-cache-size", kind: kindMemory,
		min: 0, max: math.MaxInt64, def: value{n: 64 << 20},
		num: func(c *Config) *atomic.Int64 { return &c.keyCacheSize },
	},
	{
		// The duration, in milliseconds, from which LATENCY records an
		// event (0: the latency monitor is off).
		name: "latency-monitor-threshold", kind: kindInt, mutable: true,
		min: 0, max: math.MaxInt64,
		num: func(c *Config) *atomic.Int64 { return &c.latencyMonitorThreshold },
	},
	{
		// Whether every command's latency is kept in a histogram, for INFO
		// latencystats and LATENCY HISTOGRAM.
		name: "latency-tracking", kind: kindBool, mutable: true,
		def: value{n: 1},
		num: func(c *Config) *atomic.Int64 { return &c.latencyTracking },
	},
	{
		// The percentiles INFO latencystats shows.
		name: "latency-tracking-info-percentiles", kind: kindList, mutable: true,
		def:       value{list: []string{"50", "99", "99.9"}},
		checkList: checkPercentiles,
		showWord: func(w string) string {
			p, _ := rconv.ParseFloat([]byte(w))
			return FormatPercentile(p)
		},
		list: func(c *Config) *atomic.Pointer[[]string] { return &c.latencyPercentiles },
	},
	{
		name: "logfile", kind: kindString,
		str: func(c *Config) *atomic.Pointer[string] { return &c.logFile },
	},
	{
		name: "loglevel", kind: kindEnum, mutable: true,
		enum: logLevelNames, def: value{n: logNotice},
		num: func(c *Config) *atomic.Int64 { return &c.logLevel },
	},
	{
		// The password (and user, masteruser) a replica authenticates
		// with to its master.
		name: "masterauth", kind: kindString, mutable: true,
		str: func(c *Config) *atomic.Pointer[string] { return &c.masterAuth },
	},
	{
		name: "masteruser", kind: kindString, mutable: true,
		str: func(c *Config) *atomic.Pointer[string] { return &c.masterUser },
	},
	{
		name: "maxclients", kind: kindInt, mutable: true,
		min: 1, max: math.MaxUint32, def: value{n: 10000},
		num: func(c *Config) *atomic.Int64 { return &c.maxClients },
	},
	{
		// Not a Redis setting: the memory for the member filters of
		// hashes, sets and sorted sets created since start, which spare
		// adding a new member its lookup.
		name: "member-filter-size", kind: kindMemory,
		min: 0, max: math.MaxInt64, def: value{n: 32 << 20},
		num: func(c *Config) *atomic.Int64 { return &c.memberFilterSize },
	},
	{
		// Not a Redis setting: where to serve Prometheus metrics on
		// /metrics (e.g. 127.0.0.1:9121); empty serves none.
		name: "metrics-addr", kind: kindString,
		str: func(c *Config) *atomic.Pointer[string] { return &c.metricsAddr },
	},
	{
		// The classes of keyspace events published (notify.Parse); shown
		// normalized, as Redis's CONFIG GET does.
		name: "notify-keyspace-events", kind: kindString, mutable: true,
		check: func(s string) string {
			if _, err := notify.Parse(s); err != nil {
				return err.Error()
			}
			return ""
		},
		show: func(s string) string {
			c, _ := notify.Parse(s)
			return c.String()
		},
		str: func(c *Config) *atomic.Pointer[string] { return &c.notifyEvents },
	},
	{
		name: "pidfile", kind: kindString,
		str: func(c *Config) *atomic.Pointer[string] { return &c.pidFile },
	},
	{
		// Not a Redis setting: where to serve Go's net/http/pprof profiles
		// (e.g. 127.0.0.1:6060); empty serves none.
		name: "pprof-addr", kind: kindString,
		str: func(c *Config) *atomic.Pointer[string] { return &c.pprofAddr },
	},
	{
		name: "port", kind: kindInt, mutable: true,
		min: 0, max: 65535, def: value{n: 6379},
		num: func(c *Config) *atomic.Int64 { return &c.port },
	},
	{
		// Not a Redis setting: how many processors (GOMAXPROCS) Cairn's
		// code runs on at once; 0 sizes it to the load (package procs).
		name: "procs", kind: kindInt, mutable: true,
		// More than this costs memory and GC time per processor for
		// nothing: the runtime keeps state per P.
		min: 0, max: 1024, def: value{n: 0},
		num: func(c *Config) *atomic.Int64 { return &c.procs },
	},
	{
		// Refuse clients from non-loopback addresses while no password is
		// set and the server listens beyond loopback, as Redis does.
		name: "protected-mode", kind: kindBool, mutable: true,
		def: value{n: 1},
		num: func(c *Config) *atomic.Int64 { return &c.protectedMode },
	},
	{
		name: "proto-max-bulk-len", kind: kindMemory, mutable: true,
		min: 1 << 20, max: math.MaxInt64, def: value{n: 512 << 20},
		num: func(c *Config) *atomic.Int64 { return &c.protoMaxBulkLen },
	},
	{
		// Not a Redis setting: start the process again (exec) with the Go
		// runtime's monitor kept from sleeping deeply (see package procs).
		// Off by default: a daemon that re-executes itself surprises
		// debuggers and supervisors.
		name: "quiet-monitor", kind: kindBool,
		num: func(c *Config) *atomic.Int64 { return &c.quietMonitor },
	},
	{
		// A replica refuses writes from its clients (READONLY).
		name: "replica-read-only", alias: "slave-read-only", kind: kindBool, mutable: true,
		def: value{n: 1},
		num: func(c *Config) *atomic.Int64 { return &c.replicaReadOnly },
	},
	{
		// "host port": start as a replica of that master (REPLICAOF at
		// run time).
		name: "replicaof", alias: "slaveof", kind: kindList,
		checkList: func(words []string) string {
			words = strings.Fields(strings.Join(words, " "))
			if len(words) == 0 {
				return ""
			}
			if len(words) != 2 {
				return "wrong number of arguments"
			}
			if p, err := strconv.Atoi(words[1]); err != nil || p < 0 || p > 65535 {
				return "Invalid master port"
			}
			return ""
		},
		// "host port" given as one word (--replicaof "host port") is
		// split, as Redis splits a multi-argument setting.
		merge: func(_, next []string) []string { return strings.Fields(strings.Join(next, " ")) },
		list:  func(c *Config) *atomic.Pointer[[]string] { return &c.replicaOf },
	},
	{
		name: "requirepass", kind: kindString, mutable: true,
		str: func(c *Config) *atomic.Pointer[string] { return &c.requirePass },
	},
	{
		// Cairn persists continuously and takes no snapshots on a
		// schedule: a save schedule is accepted, kept and reported as
		// ignored. SAVE and BGSAVE still write dbfilename on request.
		name: "save", kind: kindList, mutable: true, accumulate: true,
		checkList: checkSave,
		showWord:  showInt,
		ignored:   "Cairn logs every write as it happens and takes no snapshots on a schedule (SAVE and BGSAVE write an RDB file on request)",
		honoured:  func(v value) bool { return len(v.list) == 0 },
		list:      func(c *Config) *atomic.Pointer[[]string] { return &c.save },
	},
	{
		// Not a Redis setting: how much a script or function run may grow
		// the heap before it is stopped with an OOM error (0: no limit).
		// Redis's Lua has no bound short of the machine's memory. The
		// default is proto-max-bulk-len, the longest string a key holds.
		name: "script-memory-limit", kind: kindMemory, mutable: true,
		min: 0, max: math.MaxInt64, def: value{n: 512 << 20},
		num: func(c *Config) *atomic.Int64 { return &c.scriptMemoryLimit },
	},
	{
		name: "set-max-intset-entries", kind: kindInt, mutable: true,
		min: 0, max: math.MaxInt64, def: value{n: 512},
		num: func(c *Config) *atomic.Int64 { return &c.setMaxIntset },
	},
	{
		name: "set-max-listpack-entries", kind: kindInt, mutable: true,
		min: 0, max: math.MaxInt64, def: value{n: 128},
		num: func(c *Config) *atomic.Int64 { return &c.setMaxEntries },
	},
	{
		name: "set-max-listpack-value", kind: kindMemory, mutable: true,
		min: 0, max: math.MaxInt64, def: value{n: 64},
		num: func(c *Config) *atomic.Int64 { return &c.setMaxValue },
	},
	{
		// The duration, in microseconds, from which a command goes into
		// the slow log (-1: none does; 0: every command does).
		name: "slowlog-log-slower-than", kind: kindInt, mutable: true,
		min: -1, max: math.MaxInt64, def: value{n: 10000},
		num: func(c *Config) *atomic.Int64 { return &c.slowlogSlowerThan },
	},
	{
		// How many entries the slow log keeps, the oldest dropped first.
		name: "slowlog-max-len", kind: kindInt, mutable: true,
		min: 0, max: math.MaxInt64, def: value{n: 128},
		num: func(c *Config) *atomic.Int64 { return &c.slowlogMaxLen },
	},
	{
		// Accepted for compatibility: Cairn keeps no radix-tree nodes, but
		// XADD and XTRIM with ~ and no LIMIT trim at most 100 times
		// stream-node-max-entries entries, as Redis does.
		name: "stream-node-max-bytes", kind: kindMemory, mutable: true,
		min: 0, max: math.MaxInt64, def: value{n: 4096},
		num: func(c *Config) *atomic.Int64 { return &c.streamNodeMaxBytes },
	},
	{
		name: "stream-node-max-entries", kind: kindInt, mutable: true,
		min: 0, max: math.MaxInt64, def: value{n: 100},
		num: func(c *Config) *atomic.Int64 { return &c.streamNodeMaxEntries },
	},
	{
		name: "tcp-keepalive", kind: kindInt, mutable: true,
		min: 0, max: math.MaxInt32, def: value{n: 300},
		num: func(c *Config) *atomic.Int64 { return &c.tcpKeepAlive },
	},
	{
		name: "timeout", kind: kindInt, mutable: true,
		min: 0, max: math.MaxInt32, def: value{n: 0},
		num: func(c *Config) *atomic.Int64 { return &c.timeout },
	},
	{
		// TLS (package tlsconf). CONFIG SET of any of these builds the
		// whole TLS configuration anew (see CheckTLS); only tls-port is
		// fixed at start.
		name: "tls-auth-clients", kind: kindEnum, mutable: true,
		enum: tlsAuthClientsNames, def: value{n: TLSAuthYes},
		num: func(c *Config) *atomic.Int64 { return &c.tlsAuthClients },
	},
	{
		name: "tls-ca-cert-dir", kind: kindString, mutable: true,
		str: func(c *Config) *atomic.Pointer[string] { return &c.tlsCACertDir },
	},
	{
		name: "tls-ca-cert-file", kind: kindString, mutable: true,
		str: func(c *Config) *atomic.Pointer[string] { return &c.tlsCACertFile },
	},
	{
		name: "tls-cert-file", kind: kindString, mutable: true,
		str: func(c *Config) *atomic.Pointer[string] { return &c.tlsCertFile },
	},
	{
		name: "tls-ciphers", kind: kindString, mutable: true,
		str: func(c *Config) *atomic.Pointer[string] { return &c.tlsCiphers },
	},
	{
		name: "tls-ciphersuites", kind: kindString, mutable: true,
		str: func(c *Config) *atomic.Pointer[string] { return &c.tlsCiphersuites },
	},
	{
		name: "tls-key-file", kind: kindString, mutable: true,
		str: func(c *Config) *atomic.Pointer[string] { return &c.tlsKeyFile },
	},
	{
		name: "tls-key-file-pass", kind: kindString, mutable: true,
		str: func(c *Config) *atomic.Pointer[string] { return &c.tlsKeyFilePass },
	},
	{
		name: "tls-port", kind: kindInt,
		min: 0, max: 65535, def: value{n: 0},
		num: func(c *Config) *atomic.Int64 { return &c.tlsPort },
	},
	{
		name: "tls-prefer-server-ciphers", kind: kindBool, mutable: true,
		num: func(c *Config) *atomic.Int64 { return &c.tlsPreferServerCiphers },
	},
	{
		name: "tls-protocols", kind: kindString, mutable: true,
		str: func(c *Config) *atomic.Pointer[string] { return &c.tlsProtocols },
	},
	{
		// The most keys CLIENT TRACKING remembers; past it, random keys
		// are invalidated and forgotten. 0 means no limit.
		name: "tracking-table-max-keys", kind: kindInt, mutable: true,
		min: 0, max: math.MaxInt64, def: value{n: 1000000},
		num: func(c *Config) *atomic.Int64 { return &c.trackingMaxKeys },
	},
	{
		name: "zset-max-listpack-entries", alias: "zset-max-ziplist-entries", kind: kindInt, mutable: true,
		min: 0, max: math.MaxInt64, def: value{n: 128},
		num: func(c *Config) *atomic.Int64 { return &c.zsetMaxEntries },
	},
	{
		name: "zset-max-listpack-value", alias: "zset-max-ziplist-value", kind: kindMemory, mutable: true,
		min: 0, max: math.MaxInt64, def: value{n: 64},
		num: func(c *Config) *atomic.Int64 { return &c.zsetMaxValue },
	},
}

// lookup finds a setting by name, ignoring ASCII case as Redis's config
// dictionary does.
func lookup(name string) *setting {
	for _, s := range settings {
		if asciiEqualFold(s.name, name) || s.alias != "" && asciiEqualFold(s.alias, name) {
			return s
		}
	}
	return nil
}

// parse turns a setting's words into a value, or returns Redis's reason for
// refusing them. The caller has checked the number of words for single-word
// kinds.
func (s *setting) parse(args []string) (value, string) {
	v, reason := s.parseKind(args)
	if reason == "" && s.refuse != nil {
		reason = s.refuse(v)
	}
	return v, reason
}

func (s *setting) parseKind(args []string) (value, string) {
	switch s.kind {
	case kindList:
		// A single empty word means an empty list.
		if len(args) == 1 && args[0] == "" {
			args = nil
		}
		if s.checkList != nil {
			if reason := s.checkList(args); reason != "" {
				return value{}, reason
			}
		}
		return value{list: append([]string{}, args...)}, ""
	case kindBool:
		switch {
		case asciiEqualFold("yes", args[0]):
			return value{n: 1}, ""
		case asciiEqualFold("no", args[0]):
			return value{n: 0}, ""
		}
		return value{}, "argument must be 'yes' or 'no'"
	case kindString:
		if s.check != nil {
			if reason := s.check(args[0]); reason != "" {
				return value{}, reason
			}
		}
		return value{s: args[0]}, ""
	case kindEnum:
		w := cString(args[0])
		for i, name := range s.enum {
			if asciiEqualFold(name, w) {
				return value{n: int64(i)}, ""
			}
		}
		return value{}, "argument(s) must be one of the following: " + strings.Join(s.enum, ", ")
	case kindMemory:
		u, ok := parseMemory(args[0])
		if !ok {
			return value{}, "argument must be a memory value"
		}
		// Redis stores memory settings as long long: a count past
		// LLONG_MAX wraps negative and fails the bounds check below.
		return s.bound(int64(u))
	default:
		n, ok := parseInt(args[0])
		if !ok {
			return value{}, "argument couldn't be parsed into an integer"
		}
		return s.bound(n)
	}
}

func (s *setting) bound(n int64) (value, string) {
	if n < s.min || n > s.max {
		return value{}, "argument must be between " + strconv.FormatInt(s.min, 10) +
			" and " + strconv.FormatInt(s.max, 10) + " inclusive"
	}
	if s.clampMax > 0 {
		n = min(max(n, s.clampMin), s.clampMax)
	}
	return value{n: n}, ""
}

// load reads the setting's live value.
func (s *setting) load(c *Config) value {
	switch {
	case s.num == nil && s.str == nil && s.list == nil:
		return *c.extra[s].Load()
	case s.kind == kindString:
		return value{s: *s.str(c).Load()}
	case s.kind == kindList:
		return value{list: *s.list(c).Load()}
	default:
		return value{n: s.num(c).Load()}
	}
}

// store publishes a value. Values are never mutated after they are stored,
// so readers may keep what they loaded.
func (s *setting) store(c *Config, v value) {
	switch {
	case s.num == nil && s.str == nil && s.list == nil:
		c.extra[s].Store(&v)
	case s.kind == kindString:
		s.str(c).Store(&v.s)
	case s.kind == kindList:
		s.list(c).Store(&v.list)
	default:
		s.num(c).Store(v.n)
	}
}

func (s *setting) equal(a, b value) bool {
	switch s.kind {
	case kindString:
		return a.s == b.s
	case kindList:
		return slices.Equal(a.list, b.list)
	default:
		return a.n == b.n
	}
}

// format renders a value the way CONFIG GET shows it: memory as a plain byte
// count, enums by name, a list joined by spaces.
func (s *setting) format(v value) string {
	switch s.kind {
	case kindString:
		if s.show != nil {
			return s.show(v.s)
		}
		return v.s
	case kindList:
		if s.showWord == nil {
			return strings.Join(v.list, " ")
		}
		shown := make([]string, len(v.list))
		for i, w := range v.list {
			shown[i] = s.showWord(w)
		}
		return strings.Join(shown, " ")
	case kindEnum:
		return s.enum[v.n]
	case kindBool:
		if v.n != 0 {
			return "yes"
		}
		return "no"
	default:
		return strconv.FormatInt(v.n, 10)
	}
}

// checkPercentiles validates latency-tracking-info-percentiles as Redis
// does: each word a number (string2d) between 0 and 100.
func checkPercentiles(words []string) string {
	for _, w := range words {
		p, ok := rconv.ParseFloat([]byte(w))
		if !ok {
			return "Invalid latency-tracking-info-percentiles parameters"
		}
		if p < 0 || p > 100 {
			return "latency-tracking-info-percentiles parameters should sit between [0.0,100.0]"
		}
	}
	return ""
}

// FormatPercentile writes a percentile as Redis does in CONFIG GET and INFO
// latencystats: C's "%f", trailing zeros (and a bare point) trimmed.
func FormatPercentile(p float64) string {
	s := strconv.FormatFloat(p, 'f', 6, 64)
	s = strings.TrimRight(s, "0")
	return strings.TrimSuffix(s, ".")
}
