package acl

import (
	"sync"
	"time"
)

// Context is where a denied command ran, as ACL LOG reports it.
type Context int

// Contexts.
const (
	Toplevel Context = iota
	Multi
	Lua
)

func (c Context) String() string {
	switch c {
	case Multi:
		return "multi"
	case Lua:
		return "lua"
	}
	return "toplevel"
}

// LogEntry is one ACL LOG entry.
type LogEntry struct {
	Count    int64
	Reason   Reason
	Context  Context
	Object   string // the command, key, channel, or AUTH/HELLO as typed
	Username string
	// ClientInfo is the last client's CLIENT INFO line.
	ClientInfo string
	ID         int64
	// Created and Updated are Unix milliseconds.
	Created, Updated int64
}

// logGroupWindow is how close in time a denial must be to an earlier one
// with the same reason, context, object and user to be counted in it.
const logGroupWindow = 60 * time.Second

// logScan is how many recent entries a new denial is compared with.
const logScan = 10

// Log is the ACL LOG: recent denials, newest first, similar ones grouped.
// It is safe for concurrent use.
type Log struct {
	mu      sync.Mutex
	entries []*LogEntry
	nextID  int64
}

// Add records a denial at now (Unix ms), keeping at most maxLen entries.
func (l *Log) Add(e LogEntry, now int64, maxLen int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for i, old := range l.entries {
		if i >= logScan {
			break
		}
		d := now - old.Updated
		if d < 0 {
			d = -d
		}
		if old.Reason == e.Reason && old.Context == e.Context && old.Object == e.Object &&
			old.Username == e.Username && d <= logGroupWindow.Milliseconds() {
			old.Count++
			old.Updated = now
			old.ClientInfo = e.ClientInfo
			copy(l.entries[1:i+1], l.entries[:i])
			l.entries[0] = old
			return
		}
	}
	n := e
	n.Count = 1
	n.ID = l.nextID
	l.nextID++
	n.Created, n.Updated = now, now
	l.entries = append([]*LogEntry{&n}, l.entries...)
	if maxLen < 0 {
		maxLen = 0
	}
	if len(l.entries) > maxLen {
		clear(l.entries[maxLen:])
		l.entries = l.entries[:maxLen]
	}
}

// Entries returns copies of up to n newest entries.
func (l *Log) Entries(n int) []LogEntry {
	l.mu.Lock()
	defer l.mu.Unlock()
	n = min(max(n, 0), len(l.entries))
	out := make([]LogEntry, n)
	for i := range out {
		out[i] = *l.entries[i]
	}
	return out
}

// Trim drops entries beyond maxLen (acllog-max-len lowered).
func (l *Log) Trim(maxLen int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if maxLen >= 0 && len(l.entries) > maxLen {
		clear(l.entries[maxLen:])
		l.entries = l.entries[:maxLen]
	}
}

// Reset empties the log (ACL LOG RESET). Entry ids keep counting.
func (l *Log) Reset() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.entries = nil
}
