package config

import (
	"math"
	"slices"
	"strconv"
	"strings"
)

// Why Cairn accepts a Redis setting without applying it. Each ignored
// setting names one of these reasons; `cairn --help` and the README show
// them.
const (
	whyRDB = "Cairn takes no RDB snapshots on a schedule: every write goes to Pebble's log as it happens"
	whyAOF = "Cairn keeps no append-only file: every write goes to Pebble's write-ahead log"
	whyRep = "Cairn replicates from a Redis master but does not serve replicas yet"
	whyClu = "cluster mode is not supported"
	whyMem = "Cairn keeps its data on disk and never evicts keys; its memory is bounded by " +
		"cache-size, key-cache-size and member-filter-size, not by maxmemory"
	whyAlloc = "Cairn runs on Go's allocator and garbage collector: there is no jemalloc, " +
		"defragmentation, rehashing or lazy freeing to tune"
	whyProc    = "process management is left to the supervisor (systemd, Docker): Cairn runs in the foreground and logs to logfile or standard error"
	whyThreads = "Cairn serves every connection on its own goroutine across all cores"
	whyList    = "Cairn stores a list as records whatever its length (OBJECT ENCODING says quicklist)"
	whyTLS     = "not used by Cairn's TLS (Go's crypto/tls), which serves no replicas or cluster peers"
	whyDebug   = "a Redis debugging aid with no counterpart in Cairn"
	whyExpire  = "Cairn finds expired keys through an index ordered by deadline, so there is no sampling effort to tune"
	whyLocale  = "Cairn compares strings byte by byte, as Redis does with the C locale"
)

// ignoredSettings are the Redis 7.2 settings Cairn accepts and keeps but
// does not apply: a stock redis.conf loads, CONFIG GET shows them, CONFIG
// SET and CONFIG REWRITE keep them, and a start-up that sets one logs it
// (see Ignored). Bounds, defaults and mutability are Redis 7.2's, so a
// value Redis refuses is refused here too. A setting that would change what
// clients see if it were ignored (cluster mode, modules) is refused
// instead, with the reason. Two settings here are applied though they keep
// their values the same way: unixsocket and unixsocketperm.
var ignoredSettings = []*setting{
	ignoredBool("activedefrag", "", true, false, whyAlloc),
	ignoredInt("active-defrag-cycle-max", "", true, 1, 99, 25, whyAlloc),
	ignoredInt("active-defrag-cycle-min", "", true, 1, 99, 1, whyAlloc),
	ignoredMemory("active-defrag-ignore-bytes", true, 1, math.MaxInt64, 100<<20, whyAlloc),
	ignoredInt("active-defrag-max-scan-fields", "", true, 1, math.MaxInt64, 1000, whyAlloc),
	ignoredInt("active-defrag-threshold-lower", "", true, 0, 1000, 10, whyAlloc),
	ignoredInt("active-defrag-threshold-upper", "", true, 0, 1000, 100, whyAlloc),
	ignoredInt("active-expire-effort", "", true, 1, 10, 1, whyExpire),
	ignoredBool("activerehashing", "", true, true, whyAlloc),
	ignoredBool("always-show-logo", "", false, false, whyProc),
	ignoredBool("aof-load-truncated", "", true, true, whyAOF),
	ignoredBool("aof-rewrite-incremental-fsync", "", true, true, whyAOF),
	ignoredBool("aof-timestamp-enabled", "", true, false, whyAOF),
	ignoredBool("aof-use-rdb-preamble", "", true, true, whyAOF),
	ignoredString("aof_rewrite_cpulist", false, "", whyThreads),
	ignoredString("appenddirname", false, "appendonlydir", whyAOF),
	ignoredString("appendfilename", false, "appendonly.aof", whyAOF),
	ignoredInt("auto-aof-rewrite-percentage", "", true, 0, math.MaxInt32, 100, whyAOF),
	ignoredMemory("auto-aof-rewrite-min-size", true, 0, math.MaxInt64, 64<<20, whyAOF),
	ignoredString("bgsave_cpulist", false, "", whyThreads),
	ignoredString("bind-source-addr", true, "", whyRep),
	ignoredString("bio_cpulist", false, "", whyThreads),
	ignoredBool("cluster-allow-pubsubshard-when-down", "", true, true, whyClu),
	ignoredBool("cluster-allow-reads-when-down", "", true, false, whyClu),
	ignoredBool("cluster-allow-replica-migration", "", true, true, whyClu),
	ignoredInt("cluster-announce-bus-port", "", true, 0, 65535, 0, whyClu),
	ignoredString("cluster-announce-hostname", true, "", whyClu),
	ignoredString("cluster-announce-human-nodename", true, "", whyClu),
	ignoredString("cluster-announce-ip", true, "", whyClu),
	ignoredInt("cluster-announce-port", "", true, 0, 65535, 0, whyClu),
	ignoredInt("cluster-announce-tls-port", "", true, 0, 65535, 0, whyClu),
	ignoredString("cluster-config-file", false, "nodes.conf", whyClu),
	{
		// Refused when yes: clients would expect MOVED redirections and
		// CLUSTER commands.
		name: "cluster-enabled", kind: kindBool, ignored: whyClu,
		refuse: func(v value) string {
			if v.n != 0 {
				return "cluster mode is not supported by Cairn"
			}
			return ""
		},
		honoured: func(value) bool { return true },
	},
	ignoredMemory("cluster-link-sendbuf-limit", true, 0, math.MaxInt64, 0, whyClu),
	ignoredInt("cluster-migration-barrier", "", true, 0, math.MaxInt32, 1, whyClu),
	ignoredInt("cluster-node-timeout", "", true, 0, math.MaxInt64, 15000, whyClu),
	ignoredInt("cluster-port", "", false, 0, 65535, 0, whyClu),
	ignoredEnum("cluster-preferred-endpoint-type", true, []string{"ip", "hostname", "unknown-endpoint"}, 0, whyClu),
	ignoredBool("cluster-replica-no-failover", "cluster-slave-no-failover", true, false, whyClu),
	ignoredInt("cluster-replica-validity-factor", "cluster-slave-validity-factor", true, 0, math.MaxInt32, 10, whyClu),
	ignoredBool("cluster-require-full-coverage", "", true, true, whyClu),
	ignoredBool("crash-log-enabled", "", true, true, "a Go panic writes its own stack trace to standard error"),
	ignoredBool("crash-memcheck-enabled", "", true, true, "a Go panic writes its own stack trace to standard error"),
	ignoredBool("daemonize", "", false, false, whyProc),
	ignoredBool("disable-thp", "", false, true, whyAlloc),
	ignoredBool("dynamic-hz", "", true, true, whyExpire),
	{
		// Who may run DEBUG: no one (no), everyone (yes), or clients on
		// the loopback interface or the unix socket (local), as in Redis.
		name: "enable-debug-command", kind: kindEnum, enum: protectedActionNames,
	},
	{
		// Who may run MODULE LOAD, LOADEX and UNLOAD; Cairn loads no
		// modules, so those who may are told so.
		name: "enable-module-command", kind: kindEnum, enum: protectedActionNames,
	},
	ignoredEnum("enable-protected-configs", false, protectedActionNames, 0, "Cairn cannot change dir or dbfilename at run time, whatever it says"),
	ignoredString("ignore-warnings", true, "", whyDebug),
	ignoredInt("io-threads", "", false, 1, 128, 1, whyThreads),
	ignoredBool("io-threads-do-reads", "", false, false, whyThreads),
	ignoredBool("jemalloc-bg-thread", "", true, true, whyAlloc),
	ignoredBool("lazyfree-lazy-eviction", "", true, false, whyAlloc),
	ignoredBool("lazyfree-lazy-expire", "", true, false, whyAlloc),
	ignoredBool("lazyfree-lazy-server-del", "", true, false, whyAlloc),
	ignoredBool("lazyfree-lazy-user-del", "", true, false, whyAlloc),
	ignoredBool("lazyfree-lazy-user-flush", "", true, false, whyAlloc),
	ignoredInt("lfu-decay-time", "", true, 0, math.MaxInt32, 1, whyMem),
	ignoredInt("lfu-log-factor", "", true, 0, math.MaxInt32, 10, whyMem),
	ignoredInt("list-compress-depth", "", true, 0, math.MaxInt32, 0, whyList),
	ignoredInt("list-max-listpack-size", "list-max-ziplist-size", true, math.MinInt32, math.MaxInt32, -2, whyList),
	ignoredString("locale-collate", true, "", whyLocale),
	{
		// maxmemory bounds Redis's dataset; Cairn's dataset is on disk.
		// Kept and shown, so that tools reading it find what was set.
		name: "maxmemory", kind: kindMemory, mutable: true,
		min: 0, max: math.MaxInt64, ignored: whyMem,
		honoured: func(v value) bool { return v.n == 0 },
	},
	{
		// A policy Redis applies past maxmemory; Cairn evicts nothing,
		// which is noeviction without the OOM errors.
		name: "maxmemory-policy", kind: kindEnum, mutable: true, ignored: whyMem,
		enum: maxmemoryPolicyNames, def: value{n: maxmemoryNoEviction},
		honoured: func(v value) bool { return v.n == maxmemoryNoEviction },
	},
	{
		// Redis's maxmemory-clients: a byte count or a percentage of
		// maxmemory.
		name: "maxmemory-clients", kind: kindString, mutable: true, ignored: whyMem,
		def: value{s: "0"}, check: checkMemoryOrPercent, show: showMemoryOrPercent,
	},
	ignoredInt("maxmemory-eviction-tenacity", "", true, 0, 100, 10, whyMem),
	ignoredInt("maxmemory-samples", "", true, 1, math.MaxInt32, 5, whyMem),
	ignoredInt("min-replicas-max-lag", "min-slaves-max-lag", true, 0, math.MaxInt32, 10, whyRep),
	{
		// Refused above 0: Redis would then refuse every write for want
		// of replicas (NOREPLICAS), which Cairn, having none, would not.
		name: "min-replicas-to-write", alias: "min-slaves-to-write", kind: kindInt, mutable: true,
		min: 0, max: math.MaxInt32, ignored: whyRep,
		refuse: func(v value) string {
			if v.n != 0 {
				return "min-replicas-to-write needs replicas, and Cairn does not serve replicas yet"
			}
			return ""
		},
		honoured: func(value) bool { return true },
	},
	ignoredBool("no-appendfsync-on-rewrite", "", true, false, whyAOF),
	ignoredEnum("oom-score-adj", true, []string{"no", "yes", "relative", "absolute"}, 0, whyProc),
	{
		// The oom_score_adj of the primary, a replica and a child process.
		name: "oom-score-adj-values", kind: kindList, mutable: true, ignored: whyProc,
		def: value{list: []string{"0", "200", "800"}}, checkList: checkOOMScoreAdjValues,
		showWord: showInt,
	},
	ignoredString("proc-title-template", true, "{title} {listen-addr} {server-mode}", whyProc),
	ignoredEnum("propagation-error-behavior", true, []string{"ignore", "panic", "panic-on-replicas"}, 0, whyRep),
	ignoredBool("rdb-del-sync-files", "", true, false, whyRDB),
	ignoredBool("rdb-save-incremental-fsync", "", true, true, whyRDB),
	ignoredBool("rdbchecksum", "", false, true, whyRDB),
	ignoredBool("rdbcompression", "", true, true, whyRDB),
	ignoredMemory("repl-backlog-size", true, 1, math.MaxInt64, 1<<20, whyRep),
	ignoredInt("repl-backlog-ttl", "", true, 0, math.MaxInt64, 3600, whyRep),
	ignoredBool("repl-disable-tcp-nodelay", "", true, false, whyRep),
	ignoredEnum("repl-diskless-load", true, []string{"disabled", "on-empty-db", "swapdb"}, 0, whyRep),
	ignoredBool("repl-diskless-sync", "", true, true, whyRep),
	ignoredInt("repl-diskless-sync-delay", "", true, 0, math.MaxInt32, 5, whyRep),
	ignoredInt("repl-diskless-sync-max-replicas", "", true, 0, math.MaxInt32, 0, whyRep),
	ignoredInt("repl-ping-replica-period", "repl-ping-slave-period", true, 1, math.MaxInt32, 10, whyRep),
	ignoredInt("repl-timeout", "", true, 1, math.MaxInt32, 60, whyRep),
	{name: "replica-announce-ip", alias: "slave-announce-ip", kind: kindString, mutable: true, ignored: whyRep},
	ignoredInt("replica-announce-port", "slave-announce-port", true, 0, 65535, 0, whyRep),
	ignoredBool("replica-announced", "", true, true, whyRep),
	ignoredBool("replica-ignore-disk-write-errors", "", true, false, whyRep),
	ignoredBool("replica-ignore-maxmemory", "slave-ignore-maxmemory", true, true, whyRep),
	ignoredBool("replica-lazy-flush", "slave-lazy-flush", true, false, whyRep),
	ignoredInt("replica-priority", "slave-priority", true, 0, math.MaxInt32, 100, whyRep),
	ignoredBool("replica-serve-stale-data", "slave-serve-stale-data", true, true, whyRep),
	ignoredEnum("sanitize-dump-payload", true, []string{"no", "yes", "clients"}, 0, "Cairn decodes and checks a RESTORE payload in full before it stores anything"),
	ignoredString("server_cpulist", false, "", whyThreads),
	ignoredBool("set-proc-title", "", false, true, whyProc),
	{
		name: "shutdown-on-sigint", kind: kindList, mutable: true, ignored: whyProc,
		def: value{list: []string{"default"}}, checkList: checkShutdownFlags,
	},
	{
		name: "shutdown-on-sigterm", kind: kindList, mutable: true, ignored: whyProc,
		def: value{list: []string{"default"}}, checkList: checkShutdownFlags,
	},
	ignoredInt("shutdown-timeout", "", true, 0, math.MaxInt32, 10, whyRep),
	ignoredInt("socket-mark-id", "", false, 0, math.MaxUint32, 0, whyProc),
	ignoredBool("stop-writes-on-bgsave-error", "", true, true, whyRDB),
	{
		// systemd (and auto, under systemd) is applied: Cairn tells
		// systemd when it is ready and when it stops. upstart is not.
		name: "supervised", kind: kindEnum, ignored: "Cairn speaks systemd's notify protocol only; upstart is not supported",
		enum: []string{"upstart", "systemd", "auto", "no"}, def: value{n: 3},
		honoured: func(v value) bool { return v.n != 0 },
	},
	ignoredBool("syslog-enabled", "", false, false, whyProc),
	ignoredEnum("syslog-facility", false, []string{"user", "local0", "local1", "local2", "local3", "local4", "local5", "local6", "local7"}, 1, whyProc),
	ignoredString("syslog-ident", false, "redis", whyProc),
	ignoredInt("tcp-backlog", "", false, 0, math.MaxInt32, 511, "Cairn's listen backlog is the kernel's somaxconn"),
	ignoredString("tls-client-cert-file", true, "", whyTLS),
	ignoredString("tls-client-key-file", true, "", whyTLS),
	ignoredString("tls-client-key-file-pass", true, "", whyTLS),
	ignoredBool("tls-cluster", "", true, false, whyTLS),
	ignoredString("tls-dh-params-file", true, "", "Go's crypto/tls uses elliptic-curve key exchange, never DH parameters"),
	ignoredBool("tls-replication", "", true, false, whyTLS),
	ignoredInt("tls-session-cache-size", "", true, 0, math.MaxInt32, 20*1024, "Go's crypto/tls resumes sessions with tickets"),
	ignoredInt("tls-session-cache-timeout", "", true, 0, math.MaxInt32, 300, "Go's crypto/tls resumes sessions with tickets"),
	ignoredBool("tls-session-caching", "", true, true, "Go's crypto/tls resumes sessions with tickets"),
	{
		// A unix socket to listen on beside the TCP ports (empty: none).
		name: "unixsocket", kind: kindString,
	},
	{
		// The socket's permissions, in octal (0: as the umask leaves them).
		name: "unixsocketperm", kind: kindString,
		def: value{s: "0"}, check: checkOctalPerm, show: showOctal,
	},
}

// obsoleteDirectives are the Redis directives that Redis 7 itself accepts
// and ignores, with the one argument they take.
var obsoleteDirectives = []string{"list-max-ziplist-entries", "list-max-ziplist-value", "lua-replicate-commands"}

// refusedDirectives are the redis.conf directives that would change what
// clients see if Cairn ignored them, with the reason Cairn refuses them.
var refusedDirectives = map[string]string{
	"loadmodule": "modules are not supported by Cairn",
	"sentinel":   "Cairn has no sentinel mode",
}

var (
	maxmemoryPolicyNames = []string{"volatile-lru", "volatile-lfu", "volatile-random", "volatile-ttl",
		"allkeys-lru", "allkeys-lfu", "allkeys-random", "noeviction"}
	protectedActionNames = []string{"no", "yes", "local"}
)

const maxmemoryNoEviction = 7

func ignoredBool(name, alias string, mutable, def bool, why string) *setting {
	s := &setting{name: name, alias: alias, kind: kindBool, mutable: mutable, ignored: why}
	if def {
		s.def.n = 1
	}
	return s
}

func ignoredInt(name, alias string, mutable bool, lo, hi, def int64, why string) *setting {
	return &setting{name: name, alias: alias, kind: kindInt, mutable: mutable, min: lo, max: hi, def: value{n: def}, ignored: why}
}

func ignoredMemory(name string, mutable bool, lo, hi, def int64, why string) *setting {
	return &setting{name: name, kind: kindMemory, mutable: mutable, min: lo, max: hi, def: value{n: def}, ignored: why}
}

func ignoredString(name string, mutable bool, def, why string) *setting {
	return &setting{name: name, kind: kindString, mutable: mutable, def: value{s: def}, ignored: why}
}

func ignoredEnum(name string, mutable bool, names []string, def int64, why string) *setting {
	return &setting{name: name, kind: kindEnum, mutable: mutable, enum: names, def: value{n: def}, ignored: why}
}

// sortedSettings joins the two tables in name order.
func sortedSettings(tables ...[]*setting) []*setting {
	var all []*setting
	for _, t := range tables {
		all = append(all, t...)
	}
	slices.SortStableFunc(all, func(a, b *setting) int { return strings.Compare(a.name, b.name) })
	return all
}

// checkSave validates a save schedule as Redis does: pairs of seconds (at
// least 1) and changes (at least 0).
func checkSave(words []string) string {
	if len(words)%2 != 0 {
		return "Invalid save parameters"
	}
	for i, w := range words {
		n, ok := parseCLong(w)
		if !ok || (i%2 == 0 && n < 1) || (i%2 == 1 && n < 0) {
			return "Invalid save parameters"
		}
	}
	return ""
}

// parseCLong reads a whole word as C's strtoll does: leading white space,
// an optional sign, digits (none reads as 0), nothing after.
func parseCLong(w string) (int64, bool) {
	w = strings.TrimLeft(w, " \t\n\v\f\r")
	neg := false
	if w != "" && (w[0] == '+' || w[0] == '-') {
		neg, w = w[0] == '-', w[1:]
	}
	if w == "" {
		return 0, true
	}
	n, err := strconv.ParseUint(w, 10, 64)
	if err != nil {
		// strtoll saturates an overlong number; so does this.
		for _, c := range []byte(w) {
			if c < '0' || c > '9' {
				return 0, false
			}
		}
		n = math.MaxUint64
	}
	if neg {
		if n > 1<<63 {
			return math.MinInt64, true
		}
		return -int64(n), true
	}
	return int64(min(n, math.MaxInt64)), true
}

// showInt shows a word checked by parseCLong as its number.
func showInt(w string) string {
	n, _ := parseCLong(w)
	return strconv.FormatInt(n, 10)
}

// checkOOMScoreAdjValues validates oom-score-adj-values: three integers
// between -2000 and 2000.
func checkOOMScoreAdjValues(words []string) string {
	if len(words) != 3 {
		return "wrong number of arguments"
	}
	for _, w := range words {
		n, ok := parseCLong(w)
		if !ok || w == "" {
			return "Invalid oom-score-adj-values"
		}
		if n < -2000 || n > 2000 {
			return "Invalid oom-score-adj-values, elements must be between -2000 and 2000."
		}
	}
	return ""
}

// checkShutdownFlags validates shutdown-on-sigint and -sigterm: words of
// default, save, nosave, now and force, with save and nosave not together
// and default alone.
func checkShutdownFlags(words []string) string {
	if len(words) == 0 {
		return "argument(s) must be one of the following: default, save, nosave, now, force"
	}
	var seen [5]bool
	for _, w := range words {
		i := slices.IndexFunc([]string{"default", "save", "nosave", "now", "force"}, func(n string) bool { return asciiEqualFold(n, w) })
		if i < 0 {
			return "argument(s) must be one of the following: default, save, nosave, now, force"
		}
		seen[i] = true
	}
	if seen[1] && seen[2] {
		return "shutdown options SAVE and NOSAVE can't be used simultaneously"
	}
	if seen[0] && len(words) > 1 {
		return "argument(s) must be one of the following: default, save, nosave, now, force"
	}
	return ""
}

// checkMemoryOrPercent validates maxmemory-clients: a byte count, or a
// percentage of maxmemory up to 100%.
func checkMemoryOrPercent(s string) string {
	if p, ok := strings.CutSuffix(s, "%"); ok && p != "" {
		if n, ok := parseInt(p); ok && n >= 0 {
			if n > 100 {
				return "percentage argument must be less or equal to 100"
			}
			return ""
		}
	}
	if _, ok := parseMemory(s); !ok {
		return "argument must be a memory or percent value"
	}
	return ""
}

func showMemoryOrPercent(s string) string {
	if p, ok := strings.CutSuffix(s, "%"); ok {
		n, _ := parseInt(p)
		return strconv.FormatInt(n, 10) + "%"
	}
	n, _ := parseMemory(s)
	return strconv.FormatUint(n, 10)
}

// checkOctalPerm validates unixsocketperm: an octal number up to 0777.
func checkOctalPerm(s string) string {
	n, err := strconv.ParseUint(s, 8, 64)
	if err != nil {
		return "argument couldn't be parsed as an octal number"
	}
	if n > 0o777 {
		return "argument must be between 0 and 511 inclusive"
	}
	return ""
}

func showOctal(s string) string {
	n, _ := strconv.ParseUint(s, 8, 64)
	return strconv.FormatUint(n, 8)
}

// Ignored lists what the configuration file and the command line set that
// Cairn does not apply: the ignored settings they named with a value Cairn
// does not honour anyway, in CONFIG GET's order, then the obsolete
// directives they held. The server logs it once at start.
func (c *Config) Ignored() []string {
	c.mu.RLock()
	defer c.mu.RUnlock()
	var out []string
	for _, s := range settings {
		if s.ignored == "" || !c.explicit[s] {
			continue
		}
		if s.honoured != nil && s.honoured(s.load(c)) {
			continue
		}
		out = append(out, s.name)
	}
	for _, name := range c.obsolete {
		if !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	return out
}

// Rename is one rename-command directive: the command Old answers to New
// instead, or to nothing when New is empty.
type Rename struct {
	Old, New string
	// Where is the directive's place for an error message, as a
	// *LoadError would print it ("redis.conf:12: 'rename-command ...'").
	Where string
}

// Renames returns the rename-command directives, in the order they were
// read. Applying them is the command table's job: only it knows whether a
// name exists.
func (c *Config) Renames() []Rename {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return slices.Clone(c.renames)
}

// MaxMemory returns maxmemory in bytes. Cairn keeps its data on disk and
// never evicts: the setting is kept for the tools and INFO fields that read
// it, and bounds nothing.
func (c *Config) MaxMemory() int64 { return c.getExtra(maxmemorySetting).n }

// MaxMemoryPolicy returns maxmemory-policy's name; see MaxMemory.
func (c *Config) MaxMemoryPolicy() string {
	return maxmemoryPolicyNames[c.getExtra(maxmemoryPolicySetting).n]
}

// The settings with getters that keep their values in Config.extra, found
// once (Go initializes them after settings, which they depend on).
var (
	maxmemorySetting       = lookup("maxmemory")
	maxmemoryPolicySetting = lookup("maxmemory-policy")
	unixSocketSetting      = lookup("unixsocket")
	unixSocketPermSetting  = lookup("unixsocketperm")
	supervisedSetting      = lookup("supervised")

	enableProtectedConfigsSetting = lookup("enable-protected-configs")
	enableDebugCommandSetting     = lookup("enable-debug-command")
	enableModuleCommandSetting    = lookup("enable-module-command")
)

// ProtectedAction is the value of enable-debug-command and
// enable-module-command: who may run the commands they protect.
type ProtectedAction int

// The values of a ProtectedAction setting, in Redis's order.
const (
	ProtectedNo ProtectedAction = iota
	ProtectedYes
	ProtectedLocal
)

// Allows reports whether a client may run what the setting protects;
// local says whether the client is on the loopback interface or the unix
// socket (Redis's islocalClient).
func (p ProtectedAction) Allows(local bool) bool {
	return p == ProtectedYes || p == ProtectedLocal && local
}

// EnableDebugCommand returns who may run DEBUG.
func (c *Config) EnableDebugCommand() ProtectedAction {
	return ProtectedAction(c.getExtra(enableDebugCommandSetting).n)
}

// EnableModuleCommand returns who may run MODULE LOAD, LOADEX and UNLOAD.
func (c *Config) EnableModuleCommand() ProtectedAction {
	return ProtectedAction(c.getExtra(enableModuleCommandSetting).n)
}

func (c *Config) getExtra(s *setting) value { return *c.extra[s].Load() }

// UnixSocket returns the path of the unix socket to listen on, or "".
func (c *Config) UnixSocket() string { return c.getExtra(unixSocketSetting).s }

// UnixSocketPerm returns the permissions to give the unix socket; 0 leaves
// them as the process's umask made them.
func (c *Config) UnixSocketPerm() uint32 {
	n, _ := strconv.ParseUint(c.getExtra(unixSocketPermSetting).s, 8, 32)
	return uint32(n)
}

// SupervisedSystemd reports whether Cairn is to tell systemd when it is
// ready and when it stops (sd_notify): with supervised systemd, or with
// supervised auto when systemd's NOTIFY_SOCKET is in the environment, as
// in Redis.
func (c *Config) SupervisedSystemd(notifySocket string) bool {
	switch c.getExtra(supervisedSetting).n {
	case 1:
		return true
	case 2:
		return notifySocket != ""
	}
	return false
}
