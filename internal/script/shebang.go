package script

import (
	"bytes"
	"errors"
	"strings"
)

// Flags are a script's or a function's flags: the shebang's flags= of an
// EVAL script, the flags={...} of redis.register_function. The server turns
// them into command flags as Redis's scriptFlagsToCmdFlags does (no-writes
// makes the run read-only, allow-oom lets it run past maxmemory, ...).
type Flags uint8

const (
	// FlagNoWrites is no-writes: the script may only read.
	FlagNoWrites Flags = 1 << iota
	// FlagAllowOOM is allow-oom: the script may run (and write) when the
	// server is out of memory.
	FlagAllowOOM
	// FlagAllowStale is allow-stale: the script may run on a stale replica.
	FlagAllowStale
	// FlagNoCluster is no-cluster: the script refuses to run in cluster mode.
	FlagNoCluster
	// FlagAllowCrossSlot is allow-cross-slot-keys: the script may touch
	// keys of several slots.
	FlagAllowCrossSlot
	// FlagEvalCompat marks an EVAL script without a shebang line: it keeps
	// Redis 6's behaviour (the command's own flags decide, and the keys a
	// script touches need not be declared).
	FlagEvalCompat
)

// flagNames lists the flags in Redis's order (scripts_flags_def), the order
// FUNCTION LIST prints them in.
var flagNames = []struct {
	flag Flags
	name string
}{
	{FlagNoWrites, "no-writes"},
	{FlagAllowOOM, "allow-oom"},
	{FlagAllowStale, "allow-stale"},
	{FlagNoCluster, "no-cluster"},
	{FlagAllowCrossSlot, "allow-cross-slot-keys"},
}

// Names returns the names of the flags set in f, in Redis's order;
// FlagEvalCompat has no name and is left out.
func (f Flags) Names() []string {
	var out []string
	for _, fn := range flagNames {
		if f&fn.flag != 0 {
			out = append(out, fn.name)
		}
	}
	return out
}

// ParseShebang reads the optional first line of an EVAL script,
// "#!lua [flags=a,b,...]". It returns the flags (FlagEvalCompat when there
// is no shebang) and the length of the line without its newline, which the
// compiler skips while keeping the newline so line numbers stay right. The
// error text is Redis's, without the "ERR " code.
func ParseShebang(body []byte) (Flags, int, error) {
	if !bytes.HasPrefix(body, []byte("#!")) {
		return FlagEvalCompat, 0, nil
	}
	end := bytes.IndexByte(body, '\n')
	if end < 0 {
		return 0, 0, errors.New("Invalid script shebang")
	}
	parts, ok := splitArgs(body[:end])
	if !ok || len(parts) == 0 {
		return 0, 0, errors.New("Invalid engine in script shebang")
	}
	if parts[0] != "#!lua" {
		return 0, 0, errors.New("Unexpected engine in script shebang: " + parts[0])
	}
	var flags Flags
	for _, p := range parts[1:] {
		v, ok := strings.CutPrefix(p, "flags=")
		if !ok {
			return 0, 0, errors.New("Unknown lua shebang option: " + p)
		}
		if v == "" {
			continue // sdssplitlen of an empty string has no parts
		}
		for _, name := range strings.Split(v, ",") {
			f, ok := flagByName(name, false)
			if !ok {
				return 0, 0, errors.New("Unexpected flag in script shebang: " + name)
			}
			flags |= f
		}
	}
	return flags, end, nil
}

func flagByName(name string, fold bool) (Flags, bool) {
	for _, fn := range flagNames {
		if fn.name == name || fold && strings.EqualFold(fn.name, name) {
			return fn.flag, true
		}
	}
	return 0, false
}

// LibraryHeader is the parsed first line of a function library,
// "#!<engine> name=<library>".
type LibraryHeader struct {
	Engine string // as written, e.g. "lua" or "LUA"
	Name   string
	// Code is the library's code after the header line, starting with the
	// header's newline so that line numbers match the original text.
	Code []byte
}

// ParseLibraryHeader reads a FUNCTION LOAD payload's header line as Redis's
// functionExtractLibMetaData does. The error text is Redis's, without the
// "ERR " code. It does not check the engine or the name's characters.
func ParseLibraryHeader(payload []byte) (LibraryHeader, error) {
	if !bytes.HasPrefix(payload, []byte("#!")) {
		return LibraryHeader{}, errors.New("Missing library metadata")
	}
	end := bytes.IndexByte(payload, '\n')
	if end < 0 {
		return LibraryHeader{}, errors.New("Invalid library metadata")
	}
	parts, ok := splitArgs(payload[:end])
	if !ok || len(parts) == 0 {
		return LibraryHeader{}, errors.New("Invalid library metadata")
	}
	h := LibraryHeader{Engine: strings.TrimPrefix(parts[0], "#!")}
	if len(parts[0]) < 2 {
		h.Engine = ""
	}
	named := false
	for _, p := range parts[1:] {
		if len(p) >= 5 && strings.EqualFold(p[:5], "name=") {
			if named {
				return LibraryHeader{}, errors.New("Invalid metadata value, name argument was given multiple times")
			}
			named = true
			h.Name = p[5:]
			continue
		}
		return LibraryHeader{}, errors.New("Invalid metadata value given: " + p)
	}
	if !named {
		return LibraryHeader{}, errors.New("Library name was not given")
	}
	h.Code = payload[end:]
	return h, nil
}

// validName reports whether s is a valid library or function name: at
// least one of [A-Za-z0-9_].
func validName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// splitArgs splits a line as Redis's sdssplitargs does: words separated by
// spaces, "double quotes" with \n \r \t \b \a \\ \" and \xHH escapes,
// 'single quotes' with \' only. A closing quote must be followed by a space
// or the end; ok is false for unbalanced quotes.
func splitArgs(line []byte) (args []string, ok bool) {
	i := 0
	for {
		for i < len(line) && isSpace(line[i]) {
			i++
		}
		if i == len(line) {
			return args, true
		}
		var cur []byte
		inDQ, inSQ, done := false, false, false
		for !done {
			switch {
			case inDQ:
				if i >= len(line) {
					return nil, false
				}
				c := line[i]
				switch {
				case c == '\\' && i+3 < len(line) && line[i+1] == 'x' && isHex(line[i+2]) && isHex(line[i+3]):
					cur = append(cur, unhex(line[i+2])<<4|unhex(line[i+3]))
					i += 3
				case c == '\\' && i+1 < len(line):
					i++
					switch line[i] {
					case 'n':
						cur = append(cur, '\n')
					case 'r':
						cur = append(cur, '\r')
					case 't':
						cur = append(cur, '\t')
					case 'b':
						cur = append(cur, '\b')
					case 'a':
						cur = append(cur, '\a')
					default:
						cur = append(cur, line[i])
					}
				case c == '"':
					if i+1 < len(line) && !isSpace(line[i+1]) {
						return nil, false
					}
					done = true
				default:
					cur = append(cur, c)
				}
			case inSQ:
				if i >= len(line) {
					return nil, false
				}
				c := line[i]
				switch {
				case c == '\\' && i+1 < len(line) && line[i+1] == '\'':
					i++
					cur = append(cur, '\'')
				case c == '\'':
					if i+1 < len(line) && !isSpace(line[i+1]) {
						return nil, false
					}
					done = true
				default:
					cur = append(cur, c)
				}
			default:
				if i >= len(line) {
					done = true
					break
				}
				switch c := line[i]; c {
				case ' ', '\n', '\r', '\t', 0:
					done = true
				case '"':
					inDQ = true
				case '\'':
					inSQ = true
				default:
					cur = append(cur, c)
				}
			}
			if i < len(line) {
				i++
			}
		}
		args = append(args, string(cur))
	}
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == '\v' || c == '\f'
}

func isHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

func unhex(c byte) byte {
	switch {
	case c >= '0' && c <= '9':
		return c - '0'
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10
	default:
		return c - 'A' + 10
	}
}
