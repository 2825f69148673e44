package config

import "strings"

// SettingHelp describes one setting for `cairn --help`.
type SettingHelp struct {
	Name    string
	Kind    string // what a value looks like: int, memory, yes|no, a|b|c, string, words
	Default string // as CONFIG GET shows it
	Live    bool   // CONFIG SET changes it while running
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
		def := s.format(s.def)
		if s.kind == kindString {
			def = s.def.s // as written: dir's is relative to where Cairn starts
		}
		out = append(out, SettingHelp{Name: s.name, Kind: kind, Default: def, Live: s.mutable, Meaning: meanings[s.name]})
	}
	return out
}

// meanings is each setting's one-line description for --help (the README's
// table says more).
var meanings = map[string]string{
	"appendfsync":                       "always: sync the log before replying; everysec: once a second; no: leave it to the OS",
	"appendonly":                        "reported for tools that ask; Cairn's write-ahead log is always on",
	"bind":                              "addresses to listen on",
	"busy-reply-threshold":              "milliseconds a script may run before other clients get BUSY (alias lua-time-limit)",
	"cache-size":                        "Pebble's block cache",
	"client-output-buffer-limit":        "per class (normal, slave, pubsub): hard limit, soft limit, soft seconds of unsent replies",
	"client-query-buffer-limit":         "the most memory one client's unfinished request may hold",
	"dbfilename":                        "the RDB file SAVE and BGSAVE write in dir",
	"databases":                         "number of databases for SELECT",
	"dir":                               "the data directory (Pebble's files)",
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
	"quiet-monitor":                     "start again (exec) with GODEBUG=schedtrace set, which keeps Go's monitor thread from deep sleeps: less CPU per unpipelined command on few cores",
	"protected-mode":                    "with no password, refuse clients that are not on loopback",
	"proto-max-bulk-len":                "the largest bulk string a request may carry",
	"requirepass":                       "the default user's password",
	"save":                              "reported for tools that ask; Cairn takes no snapshots, so only empty is accepted",
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
	"tracking-table-max-keys":           "the most keys CLIENT TRACKING remembers (0: no limit)",
	"zset-max-listpack-entries":         "the largest sorted set OBJECT ENCODING reports as listpack",
	"zset-max-listpack-value":           "the longest member of a sorted set reported as listpack",
}
