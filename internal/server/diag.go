package server

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cairndb/cairn/internal/command"
)

// Diagnostics as Redis 7 keeps them: the slow log (SLOWLOG), the clients in
// MONITOR mode, and the latency monitor's events (LATENCY LATEST ...).
//
// dispatch calls noteCommand once per command that ran, with the duration
// it already measured for INFO commandstats; a command faster than both
// thresholds costs two atomic loads and allocates nothing. Monitors are fed
// by feedMonitors only while some client is monitoring.

// diagState is the server's diagnostics.
type diagState struct {
	slow     slowlog
	monitors monitorSet
	latency  latencyMonitor
}

// noteCommand records a command that ran for d in the slow log and the
// latency monitor when it crossed their thresholds; lua marks a command
// a script ran.
func (s *Server) noteCommand(c *client, lua bool, spec *command.Spec, args [][]byte, d time.Duration) {
	if t := s.cfg.SlowlogSlowerThan(); t >= 0 && d.Microseconds() >= t && spec.Flags&command.SkipSlowlog == 0 {
		peer, name := "?:0", ""
		if !lua {
			// A script's commands come from Redis's Lua client, which
			// has no address and no name.
			peer = c.raddr
			c.mu.Lock()
			name = c.name
			c.mu.Unlock()
		}
		s.diag.slow.add(peer, name, loggedArgs(spec, args), d.Microseconds(), int(s.cfg.SlowlogMaxLen()))
	}
	if t := s.cfg.LatencyMonitorThreshold(); t > 0 && d.Milliseconds() >= t {
		event := "command"
		if spec.Flags&command.Fast != 0 {
			event = "fast-command"
		}
		s.diag.latency.add(event, d.Milliseconds())
	}
}

// noteLatency records an event of the engine (a WAL sync...) that took d,
// when the latency monitor is on and d crosses its threshold.
func (s *Server) noteLatency(event string, d time.Duration) {
	if t := s.cfg.LatencyMonitorThreshold(); t > 0 && d.Milliseconds() >= t {
		s.diag.latency.add(event, d.Milliseconds())
	}
}

// redacted replaces arguments that carry secrets, as Redis shows them in
// the slow log and to monitors.
var redacted = []byte("(redacted)")

// sensitiveConfigs are the settings whose values CONFIG SET hides.
// (upper case, for optIs).
var sensitiveConfigs = []string{"REQUIREPASS", "MASTERAUTH", "TLS-KEY-FILE-PASS", "TLS-CLIENT-KEY-FILE-PASS"}

// loggedArgs returns args as the slow log and monitors show them: AUTH's,
// HELLO AUTH's and MIGRATE AUTH/AUTH2's credentials and sensitive CONFIG
// SET values redacted, as Redis's redactClientCommandArgument does. It
// copies the slice only when it redacts something.
func loggedArgs(spec *command.Spec, args [][]byte) [][]byte {
	var redact []int
	switch spec.Name {
	case "auth":
		// Redis redacts only the forms it accepts (a syntax error keeps
		// them).
		if len(args) <= 3 {
			for i := 1; i < len(args); i++ {
				redact = append(redact, i)
			}
		}
	case "hello":
		for j := 2; j < len(args); j++ {
			more := len(args) - 1 - j
			switch {
			case optIs(args[j], "AUTH") && more >= 2:
				redact = append(redact, j+1, j+2)
				j += 2
			case optIs(args[j], "SETNAME") && more >= 1:
				j++
			}
		}
	case "migrate":
		// The target's password (AUTH) or user and password (AUTH2),
		// as migrateCommand redacts them while it reads its options,
		// up to KEYS or a syntax error.
		for j := 6; j < len(args); j++ {
			more := len(args) - 1 - j
			switch {
			case optIs(args[j], "COPY"), optIs(args[j], "REPLACE"):
			case optIs(args[j], "AUTH") && more >= 1:
				redact = append(redact, j+1)
				j++
			case optIs(args[j], "AUTH2") && more >= 2:
				redact = append(redact, j+1, j+2)
				j += 2
			default:
				j = len(args)
			}
		}
	case "acl|setuser":
		// The user's name and rules (passwords among them).
		for j := 2; j < len(args); j++ {
			redact = append(redact, j)
		}
	case "config|set":
		for j := 2; j+1 < len(args); j += 2 {
			for _, name := range sensitiveConfigs {
				if optIs(args[j], name) {
					redact = append(redact, j+1)
				}
			}
		}
	}
	if len(redact) == 0 {
		return args
	}
	out := slices.Clone(args)
	for _, i := range redact {
		out[i] = redacted
	}
	return out
}

// Limits on what a slow log entry keeps of a command, as Redis's
// SLOWLOG_ENTRY_MAX_ARGC and SLOWLOG_ENTRY_MAX_STRING.
const (
	slowlogMaxArgc   = 32
	slowlogMaxString = 128
)

// slowEntry is one command in the slow log.
type slowEntry struct {
	id       int64
	unix     int64
	micros   int64
	args     [][]byte
	peer     string
	clientNm string
}

// slowlog is SLOWLOG's list, newest last.
type slowlog struct {
	mu      sync.Mutex
	entries []slowEntry
	nextID  int64
}

// add logs a command, its arguments cut as Redis cuts them, then drops the
// oldest entries past maxLen (0 disables the log, as in Redis).
func (l *slowlog) add(peer, name string, args [][]byte, micros int64, maxLen int) {
	if maxLen <= 0 {
		return
	}
	e := slowEntry{unix: time.Now().Unix(), micros: micros, peer: peer, clientNm: name}
	n := min(len(args), slowlogMaxArgc)
	e.args = make([][]byte, n)
	for j := range n {
		a := args[j]
		switch {
		case n != len(args) && j == n-1:
			e.args[j] = fmt.Appendf(nil, "... (%d more arguments)", len(args)-n+1)
		case len(a) > slowlogMaxString:
			e.args[j] = fmt.Appendf(slices.Clip(slices.Clone(a[:slowlogMaxString])), "... (%d more bytes)", len(a)-slowlogMaxString)
		default:
			e.args[j] = slices.Clone(a)
		}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	e.id = l.nextID
	l.nextID++
	l.entries = append(l.entries, e)
	if over := len(l.entries) - maxLen; over > 0 {
		l.entries = slices.Delete(l.entries, 0, over)
	}
}

// newest returns up to count entries, newest first.
func (l *slowlog) newest(count int) []slowEntry {
	l.mu.Lock()
	defer l.mu.Unlock()
	count = min(count, len(l.entries))
	out := make([]slowEntry, count)
	for i := range out {
		out[i] = l.entries[len(l.entries)-1-i]
	}
	return out
}

func (l *slowlog) len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.entries)
}

func (l *slowlog) reset() {
	l.mu.Lock()
	l.entries = nil
	l.mu.Unlock()
}

// monitorSet holds the clients in MONITOR mode.
type monitorSet struct {
	n       atomic.Int32
	mu      sync.Mutex
	clients []*client
}

func (m *monitorSet) add(c *client) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if slices.Contains(m.clients, c) {
		return false
	}
	m.clients = append(m.clients, c)
	m.n.Store(int32(len(m.clients)))
	return true
}

func (m *monitorSet) remove(c *client) {
	if m.n.Load() == 0 {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if i := slices.Index(m.clients, c); i >= 0 {
		m.clients = slices.Delete(m.clients, i, i+1)
		m.n.Store(int32(len(m.clients)))
	}
}

func (m *monitorSet) has(c *client) bool {
	if m.n.Load() == 0 {
		return false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Contains(m.clients, c)
}

// stopMonitor takes a client out of MONITOR mode (RESET, disconnection).
func (s *Server) stopMonitor(c *client) { s.diag.monitors.remove(c) }

// monitoring reports whether any client is in MONITOR mode.
func (s *Server) monitoring() bool { return s.diag.monitors.n.Load() > 0 }

// monitorLine formats a command as Redis shows it to monitors:
// +<unix seconds>.<microseconds> [<db> <client address>|lua] "arg" ...
func monitorLine(at time.Time, db int, from string, args [][]byte) []byte {
	b := make([]byte, 0, 64)
	b = append(b, '+')
	b = strconv.AppendInt(b, at.Unix(), 10)
	b = append(b, '.')
	us := at.Nanosecond() / 1000
	b = append(b, byte('0'+us/100000), byte('0'+us/10000%10), byte('0'+us/1000%10), byte('0'+us/100%10), byte('0'+us/10%10), byte('0'+us%10))
	b = append(b, " ["...)
	b = strconv.AppendInt(b, int64(db), 10)
	b = append(b, ' ')
	b = append(b, from...)
	b = append(b, "] "...)
	for j, a := range args {
		if j > 0 {
			b = append(b, ' ')
		}
		b = appendRepr(b, a)
	}
	return append(b, "\r\n"...)
}

// appendRepr quotes s as Redis's sdscatrepr does.
func appendRepr(b, s []byte) []byte {
	b = append(b, '"')
	for _, ch := range s {
		switch ch {
		case '\\', '"':
			b = append(b, '\\', ch)
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		case '\a':
			b = append(b, '\\', 'a')
		case '\b':
			b = append(b, '\\', 'b')
		default:
			if ch >= 0x20 && ch < 0x7f {
				b = append(b, ch)
			} else {
				const hex = "0123456789abcdef"
				b = append(b, '\\', 'x', hex[ch>>4], hex[ch&15])
			}
		}
	}
	return append(b, '"')
}

// feedMonitors sends a command that ran to every monitor, unless its spec
// keeps it from them (skip_monitor, admin commands), as Redis's call()
// does. lua marks a command run by a script.
func (s *Server) feedMonitors(c *client, spec *command.Spec, db int, lua bool, args [][]byte) {
	if !s.monitoring() || spec.Flags&(command.SkipMonitor|command.Admin) != 0 {
		return
	}
	s.sendMonitorLine(c, db, lua, loggedArgs(spec, args))
}

// sendMonitorLine formats and sends one line to every monitor.
func (s *Server) sendMonitorLine(c *client, db int, lua bool, args [][]byte) {
	from := c.raddr
	if lua {
		from = "lua"
	}
	line := monitorLine(time.Now(), db, from, args)
	s.pushMonitorLine(line)
}

func (s *Server) pushMonitorLine(line []byte) {
	m := &s.diag.monitors
	m.mu.Lock()
	targets := slices.Clone(m.clients)
	m.mu.Unlock()
	for _, mc := range targets {
		if !mc.push(func(b []byte, _ bool) []byte { return append(b, line...) }) {
			// Gone, or over its output buffer limit and being closed.
			m.remove(mc)
		}
	}
}

// feedGroupScriptCall shows monitors an EVAL or FCALL queued in a
// MULTI before the script's own commands, as Redis's evalCommand feeds
// itself.
func (s *Server) feedGroupScriptCall(g *group, spec *command.Spec, args [][]byte) {
	if !s.monitoring() || g.kind != groupMulti || !isScriptCall(spec) {
		return
	}
	line := monitorLine(time.Now(), int(g.c.db.Load()), g.c.raddr, args)
	g.deferred = append(g.deferred, func() { s.pushMonitorLine(line) })
}

// feedGroupMonitors feeds a command run inside an atomic group: its line
// is made now and sent once the group commits, so that a group run again
// for its locks shows each command once. Scripts' commands show as Redis
// shows them, from "lua".
func (s *Server) feedGroupMonitors(g *group, spec *command.Spec, args [][]byte) {
	if !s.monitoring() || spec.Flags&(command.SkipMonitor|command.Admin) != 0 {
		return
	}
	db := int(g.c.db.Load())
	if g.db != nil {
		db = *g.db
	}
	from := g.c.raddr
	if g.kind != groupMulti {
		from = "lua"
	}
	line := monitorLine(time.Now(), db, from, loggedArgs(spec, args))
	g.deferred = append(g.deferred, func() { s.pushMonitorLine(line) })
}

// monitorClientError is the error a client in MONITOR mode gets for a
// command that touches the keyspace: Redis counts monitors as replicas.
func (s *Server) monitorClientError(c *client, spec *command.Spec) string {
	if spec.Flags&(command.MayReplicate|command.Write|command.ReadOnly) == 0 || !s.diag.monitors.has(c) {
		return ""
	}
	return "ERR Replica can't interact with the keyspace"
}

// latencyHistoryLen is how many samples an event keeps, as Redis's
// LATENCY_TS_LEN.
const latencyHistoryLen = 160

type latencySample struct {
	unix, ms int64
}

// latencySeries is one event's samples: at most one a second, the highest.
type latencySeries struct {
	samples [latencyHistoryLen]latencySample
	idx     int
	max     int64
}

// latencyMonitor is LATENCY's events by name.
type latencyMonitor struct {
	mu     sync.Mutex
	events map[string]*latencySeries
}

func (m *latencyMonitor) add(event string, ms int64) {
	now := time.Now().Unix()
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.events == nil {
		m.events = map[string]*latencySeries{}
	}
	ts := m.events[event]
	if ts == nil {
		ts = &latencySeries{}
		m.events[event] = ts
	}
	ts.max = max(ts.max, ms)
	prev := &ts.samples[(ts.idx+latencyHistoryLen-1)%latencyHistoryLen]
	if prev.unix == now {
		prev.ms = max(prev.ms, ms)
		return
	}
	ts.samples[ts.idx] = latencySample{unix: now, ms: ms}
	ts.idx = (ts.idx + 1) % latencyHistoryLen
}

// latencyEvent is a copy of one event's series, oldest sample first.
type latencyEvent struct {
	name    string
	samples []latencySample
	max     int64
}

// snapshot copies the events, by name, or only the one named.
func (m *latencyMonitor) snapshot(only string) []latencyEvent {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []latencyEvent
	for name, ts := range m.events {
		if only != "" && name != only {
			continue
		}
		ev := latencyEvent{name: name, max: ts.max}
		for j := range latencyHistoryLen {
			sm := ts.samples[(ts.idx+j)%latencyHistoryLen]
			if sm.unix != 0 {
				ev.samples = append(ev.samples, sm)
			}
		}
		out = append(out, ev)
	}
	slices.SortFunc(out, func(a, b latencyEvent) int { return strings.Compare(a.name, b.name) })
	return out
}

// reset drops the named events (all with none named) and returns how many
// it dropped.
func (m *latencyMonitor) reset(names [][]byte) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(names) == 0 {
		n := len(m.events)
		m.events = nil
		return n
	}
	n := 0
	for _, name := range names {
		if _, ok := m.events[string(name)]; ok {
			delete(m.events, string(name))
			n++
		}
	}
	return n
}

// isScriptCall reports whether spec runs a script (EVAL, FCALL and their
// variants), which Redis shows to monitors before the script's commands.
func isScriptCall(spec *command.Spec) bool {
	switch spec.Name {
	case "eval", "evalsha", "eval_ro", "evalsha_ro", "fcall", "fcall_ro":
		return true
	}
	return false
}
