package config

import "strings"

// SettingHelp describes one setting for `cairn --help`.
type SettingHelp struct {
	Name    string
	Kind    string // what a value looks like: int, memory, yes|no, a|b|c, string, words
	Default string // as CONFIG GET shows it
	Live    bool   // CONFIG SET changes it while running
	Ignored bool   // a Redis setting Cairn accepts, keeps and does not apply
	Why     string // for an ignored setting, why Cairn does not apply it
	// Own is true when Meaning is written for this setting alone; an
	// ignored setting without one is described by Why, shared by many.
	Own     bool
	Meaning string
}

// Help lists every setting, in CONFIG GET's order, with its default and
// meaning.
func Help() []SettingHelp {
	out := make([]SettingHelp, 0, len(settings))
	for _, s := range settings {
		var kind string
		switch s.kind {
		case kindInt:
			kind = "int"
		case kindMemory:
			kind = "memory"
		case kindBool:
			kind = "yes|no"
		case kindEnum:
			kind = strings.Join(s.enum, "|")
		case kindList:
			kind = "words"
		default:
			kind = "string"
		}
		if k, ok := kindNames[s.name]; ok {
			kind = k
		}
		def := s.format(s.def)
		if s.kind == kindString {
			def = s.def.s // as written: dir's is relative to where Cairn starts
		}
		meaning, own := meanings[s.name]
		if !own && s.ignored != "" {
			meaning = "accepted for Redis's configs and not applied: " + s.ignored
		}
		out = append(out, SettingHelp{Name: s.name, Kind: kind, Default: def, Live: s.mutable,
			Ignored: s.ignored != "", Why: s.ignored, Own: own, Meaning: meaning})
	}
	return out
}

// kindNames names the values of the string settings that take a number.
var kindNames = map[string]string{"unixsocketperm": "octal", "maxmemory-clients": "memory|percent"}

// meanings is each setting's one-line description for --help (the README's
// table says more).
var meanings = map[string]string{
	"appendfsync":                       "always: sync the log before replying; everysec: once a second; no: leave it to the OS",
	"appendonly":                        "reported for tools that ask; Cairn's write-ahead log is always on (no is kept and ignored)",
	"bind":                              "addresses to listen on: * is every IPv4 one, ::* every IPv6 one, a leading - marks one that may be missing",
	"busy-reply-threshold":              "milliseconds a script may run before other clients get BUSY (alias lua-time-limit)",
	"cache-size":                        "Pebble's block cache",
	"client-output-buffer-limit":        "per class (normal, slave, pubsub): hard limit, soft limit, soft seconds of unsent replies",
	"client-query-buffer-limit":         "the most memory one client's unfinished request may hold",
	"dbfilename":                        "the RDB file SAVE and BGSAVE write in dir",
	"databases":                         "number of databases for SELECT",
	"dir":                               "the data directory (Pebble's files)",
	"enable-debug-command":              "who may run DEBUG: no one (no), every client (yes), or clients on loopback or the unix socket (local)",
	"enable-module-command":             "who may run MODULE LOAD, LOADEX and UNLOAD (no, yes, local); Cairn loads no modules, so they are refused either way",
	"hash-max-listpack-entries":         "the largest hash (fields) OBJECT ENCODING reports as listpack",
	"hash-max-listpack-value":           "the longest field or value of a hash reported as listpack",
	"hll-sparse-max-bytes":              "the largest sparse HyperLogLog before it turns dense",
	"hz":                                "how often per second expired keys are reclaimed",
	"key-cache-size":                    "memory for recently used keys' metadata in front of Pebble (0: off)",
	"latency-monitor-threshold":         "milliseconds from which LATENCY records an event (0: off)",
	"latency-tracking":                  "keep a histogram of every command's latency",
	"latency-tracking-info-percentiles": "the percentiles INFO latencystats shows",
	"logfile":                           "where logs go (empty: standard error)",
	"loglevel":                          "how much is logged",
	"maxclients":                        "the most clients connected at once",
	"metrics-addr":                      "serve Prometheus metrics here (no authentication: keep it on loopback)",
	"member-filter-size":                "memory for Bloom filters of new collections' members (0: off)",
	"notify-keyspace-events":            "the classes of keyspace events published (Redis's letters)",
	"pidfile":                           "write the process id here",
	"pprof-addr":                        "serve Go's pprof profiles here (no authentication: keep it on loopback)",
	"port":                              "TCP port (0: no plain port)",
	"procs":                             "processors Cairn's code runs on (GOMAXPROCS); 0 sizes it to the load",
	"masterauth":                        "the password a replica sends its master (AUTH)",
	"masteruser":                        "the user a replica authenticates as to its master (with masterauth)",
	"replica-read-only":                 "a replica refuses writes from its clients (READONLY); alias slave-read-only",
	"replicaof":                         "host port: start as a replica of that Redis master (REPLICAOF); alias slaveof",
	"quiet-monitor":                     "start again (exec) with GODEBUG=schedtrace set, which keeps Go's monitor thread from deep sleeps: less CPU per unpipelined command on few cores",
	"protected-mode":                    "with no password, refuse clients that are not on loopback",
	"proto-max-bulk-len":                "the largest bulk string a request may carry",
	"requirepass":                       "the default user's password",
	"save":                              "accepted and not applied: Cairn logs every write and takes no snapshots on a schedule (SAVE and BGSAVE write one on request)",
	"maxmemory":                         "accepted and not applied: the data is on disk and no key is ever evicted; memory is bounded by cache-size, key-cache-size and member-filter-size",
	"maxmemory-policy":                  "accepted and not applied: Cairn never evicts keys (noeviction without OOM errors); see maxmemory",
	"aclfile":                           "file of ACL users (user lines) that ACL LOAD and ACL SAVE read and write; empty: users come from user lines in the config file",
	"acllog-max-len":                    "most entries ACL LOG keeps",
	"acl-pubsub-default":                "channels a new ACL user or selector may use: allchannels or resetchannels (none)",
	"script-memory-limit":               "how much a script or function may grow the server's memory before it is stopped with an OOM error; 0: no limit",
	"set-max-intset-entries":            "the largest set of integers OBJECT ENCODING reports as intset",
	"set-max-listpack-entries":          "the largest set OBJECT ENCODING reports as listpack",
	"set-max-listpack-value":            "the longest member of a set reported as listpack",
	"slowlog-log-slower-than":           "microseconds from which a command goes into SLOWLOG (-1: none, 0: all)",
	"stream-node-max-bytes":             "accepted for compatibility: streams keep no radix-tree nodes",
	"stream-node-max-entries":           "how many entries one node of a stream holds, for XADD and XTRIM with ~",
	"slowlog-max-len":                   "entries SLOWLOG keeps",
	"tcp-keepalive":                     "TCP keepalive period in seconds (0: off)",
	"timeout":                           "close a client idle this many seconds (0: never)",
	"tls-auth-clients":                  "on the TLS port, whether clients must present a certificate signed by a tls-ca-cert-* CA",
	"tls-ca-cert-dir":                   "a directory of PEM CA certificates trusted for client certificates",
	"tls-ca-cert-file":                  "a PEM file of CA certificates trusted for client certificates",
	"tls-cert-file":                     "the server's PEM certificate (chain)",
	"tls-ciphers":                       "TLS 1.2 cipher suites, colon-separated (OpenSSL or IANA names); empty: Go's defaults",
	"tls-ciphersuites":                  "TLS 1.3 suites: Go always offers all three, so only empty or all three are accepted",
	"tls-key-file":                      "the server's PEM private key",
	"tls-key-file-pass":                 "the password of an encrypted (legacy PEM) tls-key-file",
	"tls-port":                          "TLS port (0: none); it listens on every bind address beside port",
	"tls-prefer-server-ciphers":         "accepted for Redis's configs; Go's server always picks the suite by its own preference",
	"tls-protocols":                     "TLS versions, e.g. \"TLSv1.2 TLSv1.3\" (empty: those two)",
	"supervised":                        "systemd, or auto under systemd: tell systemd (sd_notify) when Cairn is ready and when it stops, for Type=notify units; upstart is not supported",
	"unixsocket":                        "a unix socket to listen on beside the TCP ports (empty: none); its clients count as local for protected-mode",
	"unixsocketperm":                    "the unix socket's permissions, in octal (0: as the umask leaves them)",
	"tracking-table-max-keys":           "the most keys CLIENT TRACKING remembers (0: no limit)",
	"zset-max-listpack-entries":         "the largest sorted set OBJECT ENCODING reports as listpack",
	"zset-max-listpack-value":           "the longest member of a sorted set reported as listpack",
}
