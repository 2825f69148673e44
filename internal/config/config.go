package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cairndb/cairn/internal/glob"
	"github.com/cairndb/cairn/internal/notify"
	"github.com/cairndb/cairn/internal/rconv"
)

// Config is Cairn's live configuration. It is safe for concurrent use. The
// zero value is not usable; start from Default.
type Config struct {
	// setMu serializes writers, so OnChange callbacks run in the order the
	// values were stored, even though they run outside mu.
	setMu sync.Mutex
	// mu makes a multi-setting CONFIG SET or a file load appear all at once
	// to CONFIG GET. The typed getters read the atomics without it.
	mu sync.RWMutex

	hooksMu sync.Mutex
	hooks   map[*setting][]func(string)
	applies map[*setting]func() string
	checks  map[*setting]func(string) string
	tlsChk  func(TLS) string

	bind, latencyPercentiles           atomic.Pointer[[]string]
	outputBufferLimits                 atomic.Pointer[[]string] // normalized: 3 classes × 4 words
	dir, logFile, pidFile, requirePass atomic.Pointer[string]
	notifyEvents                       atomic.Pointer[string]
	pprofAddr, metricsAddr             atomic.Pointer[string]
	save                               atomic.Pointer[[]string]
	dbFilename                         atomic.Pointer[string]
	masterAuth, masterUser             atomic.Pointer[string]
	replicaOf                          atomic.Pointer[[]string]
	replicaReadOnly                    atomic.Int64 // 1 for yes
	port, databases, maxClients, hz    atomic.Int64
	timeout, tcpKeepAlive              atomic.Int64 // seconds
	trackingMaxKeys                    atomic.Int64
	busyReplyThreshold                 atomic.Int64 // ms
	protoMaxBulkLen, cacheSize         atomic.Int64 // bytes
	hllSparseMaxBytes                  atomic.Int64 // bytes
	queryBufLimit                      atomic.Int64 // bytes
	scriptMemoryLimit                  atomic.Int64 // bytes
	keyCacheSize                       atomic.Int64 // bytes
	memberFilterSize                   atomic.Int64 // bytes
	procs                              atomic.Int64
	// Collection encoding limits (hash-max-listpack-entries ...).
	hashMaxEntries, hashMaxValue             atomic.Int64
	setMaxIntset, setMaxEntries, setMaxValue atomic.Int64
	zsetMaxEntries, zsetMaxValue             atomic.Int64
	streamNodeMaxBytes, streamNodeMaxEntries atomic.Int64
	latencyTracking                          atomic.Int64 // 1 for yes
	quietMonitor                             atomic.Int64 // 1 for yes
	latencyMonitorThreshold                  atomic.Int64 // milliseconds
	slowlogSlowerThan, slowlogMaxLen         atomic.Int64 // microseconds, entries
	appendFsync, logLevel, appendOnly        atomic.Int64 // enum indexes
	protectedMode                            atomic.Int64 // 1 for yes
	tlsPort, tlsAuthClients                  atomic.Int64
	tlsPreferServerCiphers                   atomic.Int64 // 1 for yes
	tlsCertFile, tlsKeyFile, tlsKeyFilePass  atomic.Pointer[string]
	tlsCACertFile, tlsCACertDir              atomic.Pointer[string]
	tlsProtocols, tlsCiphers                 atomic.Pointer[string]
	tlsCiphersuites                          atomic.Pointer[string]

	// extra holds the values of the settings with no field of their own
	// (the ignored ones). Default fills the map; it is only read after.
	extra map[*setting]*atomic.Pointer[value]
	// explicit records the settings a file or the command line named, and
	// obsolete the names of the obsolete directives they held, for
	// Ignored; renames is the rename-command lines in order. All three are
	// guarded by mu.
	explicit                       map[*setting]bool
	obsolete                       []string
	renames                        []Rename
	aclFile                        atomic.Pointer[string]
	aclLogMaxLen, aclPubsubDefault atomic.Int64
	// users are the "user" lines, each the words after "user".
	users atomic.Pointer[[][]string]
}

// Default returns a configuration holding every setting's default.
func Default() *Config {
	c := &Config{
		hooks:    make(map[*setting][]func(string)),
		applies:  make(map[*setting]func() string),
		checks:   make(map[*setting]func(string) string),
		extra:    make(map[*setting]*atomic.Pointer[value]),
		explicit: make(map[*setting]bool),
	}
	for _, s := range settings {
		if s.num == nil && s.str == nil && s.list == nil {
			c.extra[s] = new(atomic.Pointer[value])
		}
	}
	for _, s := range settings {
		s.store(c, s.def)
	}
	return c
}

// LoadFile applies a configuration file in redis.conf syntax. Any error —
// an unreadable file, an unknown directive, a bad value — leaves the
// configuration unchanged; a refused directive is reported as a *LoadError
// with the file, the line and Redis's reason. It runs no OnChange callbacks.
func (c *Config) LoadFile(path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("config: can't open config file: %w", err)
	}
	p := &parser{read: os.ReadFile, glob: filepath.Glob}
	if abs, err := filepath.Abs(path); err == nil {
		p.open = []string{abs}
	}
	if err := p.parse(string(data), path, true, 0); err != nil {
		return err
	}
	c.apply(p.out)
	return nil
}

// ApplyArgs applies redis-server style command-line options, such as
// ["--port", "7000", "--bind", "127.0.0.1", "::1"]: each "--name" takes the
// words up to the next "--name". args excludes the program name and the
// configuration file's path. Errors are as for LoadFile, with "command line"
// as the source; the configuration is unchanged on error.
func (c *Config) ApplyArgs(args []string) error {
	return c.load(argsToText(args), "command line", false)
}

func (c *Config) load(text, source string, numbered bool) error {
	p := &parser{read: os.ReadFile, glob: filepath.Glob}
	if err := p.parse(text, source, numbered, 0); err != nil {
		return err
	}
	c.apply(p.out)
	return nil
}

// apply commits parsed directives at once.
func (c *Config) apply(ds []directive) {
	c.setMu.Lock()
	defer c.setMu.Unlock()
	c.mu.Lock()
	defer c.mu.Unlock()
	// The first line of an accumulating setting (save) replaces its value,
	// later ones add to it; an empty one clears it, as in Redis.
	started := make(map[*setting]bool)
	for _, d := range ds {
		switch {
		case d.user != nil:
			users := append(c.Users(), d.user)
			c.users.Store(&users)
			continue
		case d.rename != nil:
			c.renames = append(c.renames, *d.rename)
			continue
		case d.obsolete != "":
			c.obsolete = append(c.obsolete, d.obsolete)
			continue
		}
		switch {
		case d.s.merge != nil:
			d.v.list = d.s.merge(d.s.load(c).list, d.v.list)
		case d.s.accumulate && started[d.s] && len(d.v.list) > 0:
			d.v.list = append(slices.Clone(d.s.load(c).list), d.v.list...)
		}
		started[d.s] = true
		d.s.store(c, d.v)
		c.explicit[d.s] = true
	}
}

// Get answers CONFIG GET: the name and value of every setting matching any
// of the patterns, each setting once. A pattern without glob characters is
// an exact, case-insensitive name and is answered under the name as written;
// any other pattern is a case-insensitive Redis glob answered under the
// settings' own names. Values are formatted as Redis shows them.
//
// Redis looks for glob characters (strpbrk) and matches a glob (stringmatch)
// in the pattern as a C string, up to its first NUL, but looks an exact name
// up in its dictionary whole: "maxmemory\x00*" is no pattern and names no
// setting, while "maxmemory*\x00x" is the glob "maxmemory*".
func (c *Config) Get(patterns ...string) [][2]string {
	c.mu.RLock()
	defer c.mu.RUnlock()
	var out [][2]string
	// A setting with an alias is reported under each name that matches,
	// as Redis 7 does; each name once.
	seen := make(map[string]bool)
	for _, p := range patterns {
		exact := !strings.ContainsAny(cString(p), "[*?")
		pb := []byte(cString(p))
		for _, s := range settings {
			for _, name := range [2]string{s.name, s.alias} {
				if name == "" || seen[name] {
					continue
				}
				switch {
				case exact && asciiEqualFold(name, p):
					out = append(out, [2]string{p, s.format(s.load(c))})
				case !exact && glob.Match(pb, []byte(name), true):
					out = append(out, [2]string{name, s.format(s.load(c))})
				default:
					continue
				}
				seen[name] = true
			}
		}
	}
	return out
}

// Set answers CONFIG SET name value [name value ...]: every pair is applied,
// or none is. The error's text is Redis's complete error reply, "ERR" prefix
// included. Checks run in Redis's order: first every name (unknown, then
// immutable or repeated), then every value in turn.
//
// The command layer answers an odd argument count with "ERR syntax error"
// and too few arguments with the arity error before calling Set.
//
// After the values are stored, the OnChange callbacks of the settings whose
// value actually changed run in the order of pairs. Set returns after they
// have.
func (c *Config) Set(pairs [][2]string) error {
	c.setMu.Lock()
	defer c.setMu.Unlock()

	targets := make([]*setting, len(pairs))
	unknown, errName, errText := "", "", ""
	// isUnknown tells an unknown empty name from none.
	invalid, isUnknown := false, false
	for i, p := range pairs {
		s := lookup(p[0])
		switch {
		case s == nil:
			if !invalid {
				unknown, isUnknown, invalid = p[0], true, true
			}
		case invalid:
		case !s.mutable:
			errName, errText, invalid = p[0], "can't set immutable config", true
			// Redis can change dir and dbfilename, but only when
			// enable-protected-configs allows it (not by default),
			// and says so; Cairn cannot change them at all.
			if s.protected && c.getExtra(enableProtectedConfigsSetting).n == 0 {
				errText = "can't set protected config"
			}
		default:
			// A setting named twice is refused, but Redis takes a setting
			// and its alias together: the later value stays.
			for j, t := range targets[:i] {
				if t == s && isAlias(s, pairs[j][0]) == isAlias(s, p[0]) {
					errName, errText, invalid = p[0], "duplicate parameter", true
					break
				}
			}
			targets[i] = s
		}
	}
	// The names are whole in the lookup, as CONFIG GET's exact names are,
	// but Redis quotes them with %s: up to the NUL.
	if isUnknown {
		return errors.New("ERR Unknown option or number of arguments for CONFIG SET - '" + cString(unknown) + "'")
	}
	if invalid {
		return setFailed(errName, errText)
	}

	values := make([]value, len(pairs))
	for i, s := range targets {
		words := []string{pairs[i][1]}
		if s.kind == kindList {
			// Redis splits a multi-word value on single spaces.
			words = strings.Split(pairs[i][1], " ")
		}
		v, reason := s.parse(words)
		if reason != "" {
			return setFailed(s.name, reason)
		}
		if check := c.check(s); check != nil {
			if reason := check(s.format(v)); reason != "" {
				return setFailed(s.name, reason)
			}
		}
		values[i] = v
	}
	if reason, at := c.checkTLS(targets, values); reason != "" {
		return setFailed(at, reason)
	}

	type change struct {
		s     *setting
		old   value
		fns   []func(string)
		value string
	}
	var changes []change
	c.mu.Lock()
	for i, s := range targets {
		if s.merge != nil {
			values[i].list = s.merge(s.load(c).list, values[i].list)
		}
		old := s.load(c)
		if s.equal(old, values[i]) {
			continue
		}
		s.store(c, values[i])
		changes = append(changes, change{s: s, old: old, value: s.format(values[i]), fns: c.callbacks(s)})
	}
	c.mu.Unlock()
	// The apply functions put the new values to work (bind and port
	// rebind the listeners); the first that fails restores every old
	// value and applies them again, as Redis's CONFIG SET does.
	for i, ch := range changes {
		apply := c.applyFunc(ch.s)
		if apply == nil {
			continue
		}
		if reason := apply(); reason != "" {
			c.mu.Lock()
			for _, back := range changes {
				back.s.store(c, back.old)
			}
			c.mu.Unlock()
			for _, back := range changes[:i+1] {
				if fn := c.applyFunc(back.s); fn != nil {
					_ = fn()
				}
			}
			return setFailed(ch.s.name, reason)
		}
	}
	for _, ch := range changes {
		for _, fn := range ch.fns {
			fn(ch.value)
		}
	}
	return nil
}

// isAlias reports whether name, which names s, is its alias.
func isAlias(s *setting, name string) bool { return s.alias != "" && asciiEqualFold(s.alias, name) }

func setFailed(name, reason string) error {
	return errors.New("ERR CONFIG SET failed (possibly related to argument '" + cString(name) + "') - " + reason)
}

func (c *Config) callbacks(s *setting) []func(string) {
	c.hooksMu.Lock()
	defer c.hooksMu.Unlock()
	return c.hooks[s]
}

func (c *Config) check(s *setting) func(string) string {
	c.hooksMu.Lock()
	defer c.hooksMu.Unlock()
	return c.checks[s]
}

func (c *Config) applyFunc(s *setting) func() string {
	c.hooksMu.Lock()
	defer c.hooksMu.Unlock()
	return c.applies[s]
}

// OnApply registers fn to put a new value of the named setting to work
// when CONFIG SET changes it, as Redis's apply functions do (bind and port
// rebind the listeners). fn reads the new value through the getters and
// returns "" or the reason it failed; a failure restores the old values of
// every setting of the CONFIG SET, runs the apply functions already run
// again (now with the old values), and refuses the CONFIG SET with
// Redis's "CONFIG SET failed" error carrying the reason. It runs on the
// goroutine of the CONFIG SET, before the OnChange callbacks, with other
// CONFIG SETs held off; it must not call Set. A later OnApply replaces an
// earlier one.
//
// OnApply panics if the setting does not exist or cannot change at run
// time.
func (c *Config) OnApply(name string, fn func() (reason string)) {
	s := lookup(name)
	if s == nil || !s.mutable {
		panic("config: OnApply of unknown or immutable setting " + name)
	}
	c.hooksMu.Lock()
	defer c.hooksMu.Unlock()
	c.applies[s] = fn
}

// Check registers fn to vet a CONFIG SET of the named setting after its
// value parsed: a non-empty reason refuses the whole CONFIG SET with Redis's
// "CONFIG SET failed" error carrying it. It is for limits only the running
// process knows (maxclients against the open-file limit). fn gets the value
// as CONFIG GET would show it and runs with the CONFIG SET's writers held
// off; it must not call Set. A later Check replaces an earlier one.
//
// Check panics if the setting does not exist or cannot change at run time.
func (c *Config) Check(name string, fn func(value string) (reason string)) {
	s := lookup(name)
	if s == nil || !s.mutable {
		panic("config: Check of unknown or immutable setting " + name)
	}
	c.hooksMu.Lock()
	defer c.hooksMu.Unlock()
	c.checks[s] = fn
}

// OnChange registers fn to run after a CONFIG SET changes the named setting,
// with the new value as CONFIG GET shows it. It is how the server follows a
// live change (appendfsync to the store's sync mode, requirepass to the
// default user). fn runs on the goroutine of the CONFIG SET, after the
// values are published and before Set returns; it may call the getters and
// Get but must not call Set. Loading a file or the command line runs no
// callbacks.
//
// OnChange panics if the setting does not exist or cannot change at run
// time: either is a programming error.
func (c *Config) OnChange(name string, fn func(value string)) {
	s := lookup(name)
	if s == nil {
		panic("config: OnChange of unknown setting " + name)
	}
	if !s.mutable {
		panic("config: OnChange of immutable setting " + name)
	}
	c.hooksMu.Lock()
	defer c.hooksMu.Unlock()
	c.hooks[s] = append(c.hooks[s], fn)
}

// Bind returns the addresses to listen on, as written ("*" and a leading
// "-" keep Redis's meaning). An empty list means no TCP listener.
func (c *Config) Bind() []string { return append([]string(nil), *c.bind.Load()...) }

// Port returns the TCP port; 0 means no TCP listener.
func (c *Config) Port() int { return int(c.port.Load()) }

// Dir returns the data directory, as written.
func (c *Config) Dir() string { return *c.dir.Load() }

// DBFilename returns the name of the RDB file SAVE and BGSAVE write in Dir.
func (c *Config) DBFilename() string { return *c.dbFilename.Load() }

// Databases returns the number of databases SELECT can reach.
func (c *Config) Databases() int { return int(c.databases.Load()) }

// RequirePass returns the default user's password; "" means none.
func (c *Config) RequirePass() string { return *c.requirePass.Load() }

// AppendFsync returns "always", "everysec" or "no".
func (c *Config) AppendFsync() string { return appendFsyncNames[c.appendFsync.Load()] }

// MaxClients returns the most clients that may be connected at once.
func (c *Config) MaxClients() int { return int(c.maxClients.Load()) }

// Timeout returns how long a client may stay idle before it is closed; 0
// means never.
func (c *Config) Timeout() time.Duration { return time.Duration(c.timeout.Load()) * time.Second }

// ProtoMaxBulkLen returns the longest bulk string a client may send.
func (c *Config) ProtoMaxBulkLen() int64 { return c.protoMaxBulkLen.Load() }

// HLLSparseMaxBytes returns hll-sparse-max-bytes: the longest a
// HyperLogLog in the sparse encoding may grow before it turns dense.
func (c *Config) HLLSparseMaxBytes() int64 { return c.hllSparseMaxBytes.Load() }

// ClientQueryBufferLimit returns the most memory a client's incomplete
// request may hold (client-query-buffer-limit).
func (c *Config) ClientQueryBufferLimit() int64 { return c.queryBufLimit.Load() }

// ScriptMemoryLimit returns how much a script run may grow the heap (0: no
// limit).
func (c *Config) ScriptMemoryLimit() int64 { return c.scriptMemoryLimit.Load() }

// LogLevel returns "debug", "verbose", "notice", "warning" or "nothing".
func (c *Config) LogLevel() string { return logLevelNames[c.logLevel.Load()] }

// LogFile returns the log file's path; "" means standard error.
func (c *Config) LogFile() string { return *c.logFile.Load() }

// BusyReplyThreshold returns how long a script runs before other clients
// are answered BUSY.
func (c *Config) BusyReplyThreshold() time.Duration {
	return time.Duration(c.busyReplyThreshold.Load()) * time.Millisecond
}

// TrackingTableMaxKeys returns the most keys CLIENT TRACKING remembers (0:
// no limit).
func (c *Config) TrackingTableMaxKeys() int64 { return c.trackingMaxKeys.Load() }

// NotifyKeyspaceEvents returns the classes of keyspace events published.
func (c *Config) NotifyKeyspaceEvents() notify.Class {
	n, _ := notify.Parse(*c.notifyEvents.Load()) // checked when set
	return n
}

// CacheSize returns the size of Pebble's block cache in bytes.
func (c *Config) CacheSize() int64 { return c.cacheSize.Load() }

// KeyCacheSize returns the size of the store's key cache in bytes.
func (c *Config) KeyCacheSize() int64 { return c.keyCacheSize.Load() }

// EncodingLimits are the collection encoding limits, in the order
// hash-max-listpack-entries, hash-max-listpack-value,
// set-max-intset-entries, set-max-listpack-entries, set-max-listpack-value,
// zset-max-listpack-entries, zset-max-listpack-value.
type EncodingLimits struct {
	HashEntries, HashValue                 int64
	SetIntsetEntries, SetEntries, SetValue int64
	ZSetEntries, ZSetValue                 int64
}

// EncodingLimits returns the collection encoding limits.
func (c *Config) EncodingLimits() EncodingLimits {
	return EncodingLimits{
		HashEntries: c.hashMaxEntries.Load(), HashValue: c.hashMaxValue.Load(),
		SetIntsetEntries: c.setMaxIntset.Load(), SetEntries: c.setMaxEntries.Load(), SetValue: c.setMaxValue.Load(),
		ZSetEntries: c.zsetMaxEntries.Load(), ZSetValue: c.zsetMaxValue.Load(),
	}
}

// EncodingLimitNames are the settings EncodingLimits reads.
var EncodingLimitNames = []string{
	"hash-max-listpack-entries", "hash-max-listpack-value",
	"set-max-intset-entries", "set-max-listpack-entries", "set-max-listpack-value",
	"zset-max-listpack-entries", "zset-max-listpack-value",
}

// StreamNodeMaxEntries returns stream-node-max-entries.
func (c *Config) StreamNodeMaxEntries() int64 { return c.streamNodeMaxEntries.Load() }

// MemberFilterSize returns the memory for the store's member filters in
// bytes.
func (c *Config) MemberFilterSize() int64 { return c.memberFilterSize.Load() }

// TCPKeepAlive returns the TCP keep-alive period of client connections; 0
// disables keep-alive.
func (c *Config) TCPKeepAlive() time.Duration {
	return time.Duration(c.tcpKeepAlive.Load()) * time.Second
}

// Hz returns how many times a second background tasks run.
func (c *Config) Hz() int { return int(c.hz.Load()) }

// Procs returns the processor count to run on, or 0 to size it to the load.
func (c *Config) Procs() int { return int(c.procs.Load()) }

// SlowlogSlowerThan is the duration in microseconds from which a command
// goes into the slow log, negative when none does.
func (c *Config) SlowlogSlowerThan() int64 { return c.slowlogSlowerThan.Load() }

// SlowlogMaxLen is how many entries the slow log keeps.
func (c *Config) SlowlogMaxLen() int64 { return c.slowlogMaxLen.Load() }

// LatencyMonitorThreshold is the duration in milliseconds from which the
// latency monitor records an event, 0 when it is off.
func (c *Config) LatencyMonitorThreshold() int64 { return c.latencyMonitorThreshold.Load() }

// QuietMonitor reports whether the process should start again with the Go
// runtime's monitor kept from sleeping deeply (procs.ExecWithQuietMonitor).
func (c *Config) QuietMonitor() bool { return c.quietMonitor.Load() != 0 }

// LatencyTracking reports whether commands' latencies are being recorded.
func (c *Config) LatencyTracking() bool { return c.latencyTracking.Load() != 0 }

// LatencyPercentiles returns the percentiles INFO latencystats shows, with
// the precision they were set with (CONFIG GET shows them rounded).
func (c *Config) LatencyPercentiles() []float64 {
	words := *c.latencyPercentiles.Load()
	ps := make([]float64, len(words))
	for i, w := range words {
		// Checked when set.
		ps[i], _ = rconv.ParseFloat([]byte(w))
	}
	return ps
}

// PidFile returns the path of the pid file; "" means none.
func (c *Config) PidFile() string { return *c.pidFile.Load() }

// PprofAddr is where Go's profiles are served, or "" for nowhere.
func (c *Config) PprofAddr() string { return *c.pprofAddr.Load() }

// MetricsAddr is where Prometheus metrics are served, or "" for nowhere.
func (c *Config) MetricsAddr() string { return *c.metricsAddr.Load() }

// MasterAuth is masterauth: the password a replica sends its master.
func (c *Config) MasterAuth() string { return *c.masterAuth.Load() }

// MasterUser is masteruser: the user of AUTH to the master, "" for the
// default user.
func (c *Config) MasterUser() string { return *c.masterUser.Load() }

// ReplicaOf is the replicaof setting: host and port, or nil.
func (c *Config) ReplicaOf() []string { return append([]string(nil), *c.replicaOf.Load()...) }

// SetReplicaOf records the master REPLICAOF set at run time (none: nil),
// which CONFIG GET replicaof shows, as Redis's does.
func (c *Config) SetReplicaOf(words []string) {
	w := append([]string(nil), words...)
	c.replicaOf.Store(&w)
}

// ReplicaReadOnly reports whether a replica refuses its clients' writes.
func (c *Config) ReplicaReadOnly() bool { return c.replicaReadOnly.Load() != 0 }

// ProtectedMode reports whether protected-mode is on.
func (c *Config) ProtectedMode() bool { return c.protectedMode.Load() != 0 }

// tls-auth-clients values, as TLS.AuthClients holds them.
const (
	TLSAuthNo = iota
	TLSAuthYes
	TLSAuthOptional
)

// TLS is the tls-* settings, as package tlsconf needs them.
type TLS struct {
	Port                             int
	CertFile, KeyFile, KeyFilePass   string
	CACertFile, CACertDir            string
	AuthClients                      int // TLSAuthNo, TLSAuthYes or TLSAuthOptional
	Protocols, Ciphers, Ciphersuites string
	PreferServerCiphers              bool
}

// TLS returns the tls-* settings.
func (c *Config) TLS() TLS {
	return TLS{
		Port:                int(c.tlsPort.Load()),
		CertFile:            *c.tlsCertFile.Load(),
		KeyFile:             *c.tlsKeyFile.Load(),
		KeyFilePass:         *c.tlsKeyFilePass.Load(),
		CACertFile:          *c.tlsCACertFile.Load(),
		CACertDir:           *c.tlsCACertDir.Load(),
		AuthClients:         int(c.tlsAuthClients.Load()),
		Protocols:           *c.tlsProtocols.Load(),
		Ciphers:             *c.tlsCiphers.Load(),
		Ciphersuites:        *c.tlsCiphersuites.Load(),
		PreferServerCiphers: c.tlsPreferServerCiphers.Load() != 0,
	}
}

// CheckTLS registers fn to vet a CONFIG SET that changes any tls-* setting:
// fn gets the TLS settings as they would be after it, and a non-empty
// reason refuses the whole CONFIG SET (Redis builds its new TLS context the
// same way, from all the values at once, so that a certificate and its key
// can change together). The same rules as Check apply.
func (c *Config) CheckTLS(fn func(TLS) (reason string)) {
	c.hooksMu.Lock()
	defer c.hooksMu.Unlock()
	c.tlsChk = fn
}

// checkTLS runs the CheckTLS hook when targets include a tls-* setting,
// returning its reason and the first such setting's name.
func (c *Config) checkTLS(targets []*setting, values []value) (reason, at string) {
	c.hooksMu.Lock()
	fn := c.tlsChk
	c.hooksMu.Unlock()
	if fn == nil {
		return "", ""
	}
	// The candidate is a copy of the live TLS settings with the new values.
	cand := &Config{}
	for _, s := range settings {
		if strings.HasPrefix(s.name, "tls-") && s.ignored == "" {
			s.store(cand, s.load(c))
		}
	}
	for i, s := range targets {
		if strings.HasPrefix(s.name, "tls-") && s.ignored == "" {
			s.store(cand, values[i])
			if at == "" {
				at = s.name
			}
		}
	}
	if at == "" {
		return "", ""
	}
	return fn(cand.TLS()), at
}

// ACLFile returns the aclfile path; "" means users come from user lines.
func (c *Config) ACLFile() string { return *c.aclFile.Load() }

// ACLLogMaxLen returns how many entries ACL LOG keeps.
func (c *Config) ACLLogMaxLen() int64 { return c.aclLogMaxLen.Load() }

// ACLPubsubAllChannels reports whether acl-pubsub-default is allchannels.
func (c *Config) ACLPubsubAllChannels() bool { return c.aclPubsubDefault.Load() == 0 }

// Users returns the configuration's user lines in order, each as the words
// after "user" (the name, then its ACL rules).
func (c *Config) Users() [][]string {
	p := c.users.Load()
	if p == nil {
		return nil
	}
	out := make([][]string, len(*p))
	for i, u := range *p {
		out[i] = append([]string(nil), u...)
	}
	return out
}
