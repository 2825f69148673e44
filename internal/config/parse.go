package config

import (
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
)

// LoadError is a directive Cairn refused while loading a configuration file
// or the command line. Reason is in Redis's words.
type LoadError struct {
	Source string // the file's path, or "command line"
	Line   int    // 1-based line in the file; 0 for the command line
	Text   string // the directive as Redis would print it
	Reason string
}

func (e *LoadError) Error() string {
	if e.Line > 0 {
		return e.Source + ":" + itoa(e.Line) + ": '" + e.Text + "': " + e.Reason
	}
	return e.Source + ": '" + e.Text + "': " + e.Reason
}

// place is where the error is, as Error prints it before the reason.
func (e *LoadError) place(numbered bool, line int) string {
	if numbered {
		return e.Source + ":" + itoa(line) + ": '" + e.Text + "'"
	}
	return e.Source + ": '" + e.Text + "'"
}

func itoa(n int) string {
	var b [20]byte
	i := len(b)
	for {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
		if n == 0 {
			return string(b[i:])
		}
	}
}

// directive is one accepted line: a setting and its new value, a
// rename-command, or an obsolete directive Redis itself ignores.
type directive struct {
	s        *setting
	v        value
	rename   *Rename
	obsolete string
	// user, for a "user" line, is its words after "user"; s is nil.
	user []string
}

// maxIncludeDepth bounds include nesting and maxIncludes the files one load
// may include in all, so that no configuration can make a start-up recurse
// or fan out without end (Redis recurses without bound, and crashes on a
// file that includes itself).
const (
	maxIncludeDepth = 16
	maxIncludes     = 1024
)

// parser reads configuration text. read opens included files; nil makes
// every include fail, as for text that is not from a file system.
type parser struct {
	read func(path string) ([]byte, error)
	glob func(pattern string) ([]string, error)
	out  []directive
	// open is the files being included, outermost first, to refuse a
	// cycle; included counts every file included so far.
	open     []string
	included int
}

// parseText reads redis.conf text the way Redis's
// loadServerConfigFromString does: one directive per line, blank lines and
// lines starting with '#' skipped, words split like sdssplitargs. It changes
// nothing; the caller commits the directives, so a bad line leaves the
// configuration as it was. Included files cannot be read.
func parseText(text, source string, numbered bool) ([]directive, error) {
	p := &parser{}
	err := p.parse(text, source, numbered, 0)
	return p.out, err
}

func (p *parser) parse(text, source string, numbered bool, depth int) error {
	lineNum := 0
	for len(text) > 0 || lineNum == 0 {
		line := text
		if i := strings.IndexByte(text, '\n'); i >= 0 {
			line, text = text[:i], text[i+1:]
		} else {
			text = ""
		}
		lineNum++
		line = strings.Trim(line, " \t\r\n")
		if line == "" || line[0] == '#' {
			continue
		}
		fail := func(reason string) error {
			e := &LoadError{Source: source, Text: line, Reason: reason}
			if numbered {
				e.Line = lineNum
			}
			return e
		}
		args, ok := splitArgs(line)
		if !ok {
			return fail("Unbalanced quotes in configuration line")
		}
		if len(args) == 0 {
			continue
		}
		if asciiEqualFold(args[0], "user") && len(args) >= 2 {
			// Checked against the command table when the server loads
			// the users.
			p.out = append(p.out, directive{user: args[1:]})
			continue
		}
		s := lookup(args[0])
		if s == nil {
			switch name := asciiLower(args[0]); {
			case name == "include" && len(args) == 2:
				if depth >= maxIncludeDepth {
					return fail("include nested too deep (more than " + itoa(maxIncludeDepth) + " files)")
				}
				if err := p.include(args[1], depth+1); err != nil {
					return fail(err.Error())
				}
			case name == "rename-command" && len(args) == 3:
				where := (&LoadError{Source: source, Text: line}).place(numbered, lineNum)
				p.out = append(p.out, directive{rename: &Rename{Old: args[1], New: args[2], Where: where}})
			case slices.Contains(obsoleteDirectives, name) && len(args) == 2:
				p.out = append(p.out, directive{obsolete: name})
			case refusedDirectives[name] != "":
				return fail(refusedDirectives[name])
			default:
				return fail("Bad directive or wrong number of arguments")
			}
			continue
		}
		if s.kind != kindList && len(args) != 2 {
			return fail("wrong number of arguments")
		}
		words := args[1:]
		if s.kind == kindList && len(words) == 1 && words[0] != "" {
			// A multi-word setting given as one word is split again, so
			// that --save "900 1" works, as in Redis.
			if again, ok := splitArgs(words[0]); ok {
				words = again
			}
		}
		v, reason := s.parse(words)
		if reason != "" {
			return fail(reason)
		}
		p.out = append(p.out, directive{s: s, v: v})
	}
	return nil
}

// include reads the directives of the file at path, or of every file
// matching it when it holds a glob character (none matching is no error,
// so that an empty conf.d directory may be included), as Redis does.
// Relative paths are from the working directory, as in Redis.
func (p *parser) include(path string, depth int) error {
	if p.read == nil {
		return errors.New("include is not available here")
	}
	paths := []string{path}
	if strings.ContainsAny(path, "*?[") {
		var err error
		if paths, err = p.glob(path); err != nil {
			return fmt.Errorf("include %s: %w", path, err)
		}
	}
	for _, f := range paths {
		key := f
		if abs, err := filepath.Abs(f); err == nil {
			key = abs
		}
		if slices.Contains(p.open, key) {
			return fmt.Errorf("include cycle: '%s' includes itself", f)
		}
		if p.included++; p.included > maxIncludes {
			return fmt.Errorf("more than %d files included", maxIncludes)
		}
		data, err := p.read(f)
		if err != nil {
			return fmt.Errorf("can't open config file '%s': %w", f, err)
		}
		p.open = append(p.open, key)
		err = p.parse(string(data), f, true, depth)
		p.open = p.open[:len(p.open)-1]
		if err != nil {
			return err
		}
	}
	return nil
}

// argsToText turns redis-server command-line options into configuration
// text the way Redis's main does: "--name" starts a new line (the name is
// copied raw, so "--port 7000" as one word works), and every other word is
// appended quoted. The word right after a bare "--name" is always a value,
// even if it starts with "--".
func argsToText(args []string) string {
	var b strings.Builder
	nameOpen := false // the last word was a lone option name
	for _, a := range args {
		if !nameOpen && strings.HasPrefix(a, "--") {
			if b.Len() > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(a[2:])
			b.WriteByte(' ')
			words, ok := splitArgs(a)
			nameOpen = ok && len(words) == 1
			continue
		}
		appendRepr(&b, a)
		b.WriteByte(' ')
		nameOpen = false
	}
	return b.String()
}

// appendRepr quotes s so that splitArgs reads it back unchanged, as Redis's
// sdscatrepr does.
func appendRepr(b *strings.Builder, s string) {
	const hex = "0123456789abcdef"
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '\\', '"':
			b.WriteByte('\\')
			b.WriteByte(c)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case '\a':
			b.WriteString(`\a`)
		case '\b':
			b.WriteString(`\b`)
		default:
			if c >= 0x20 && c < 0x7f {
				b.WriteByte(c)
			} else {
				b.WriteString(`\x`)
				b.WriteByte(hex[c>>4])
				b.WriteByte(hex[c&0xf])
			}
		}
	}
	b.WriteByte('"')
}

// splitArgs splits a line into words like Redis's sdssplitargs: words are
// separated by white space; "double quotes" allow \n \r \t \b \a \xHH and
// \<any> escapes; 'single quotes' allow only \'; a quote may open in the
// middle of a word but a closing quote must be followed by white space or
// the end. ok is false for unbalanced quotes. A NUL byte ends the line, as
// it does for the C string Redis parses.
func splitArgs(line string) (args []string, ok bool) {
	if i := strings.IndexByte(line, 0); i >= 0 {
		line = line[:i]
	}
	p := 0
	for {
		for p < len(line) && isSpace(line[p]) {
			p++
		}
		if p == len(line) {
			return args, true
		}
		var cur []byte
		inDouble, inSingle := false, false
	word:
		for {
			// at(i) is the byte i past p, or 0 past the end, like
			// reading a C string.
			at := func(i int) byte {
				if p+i < len(line) {
					return line[p+i]
				}
				return 0
			}
			c := at(0)
			switch {
			case inDouble:
				switch {
				case c == '\\' && at(1) == 'x' && isHex(at(2)) && isHex(at(3)):
					cur = append(cur, unhex(at(2))<<4|unhex(at(3)))
					p += 3
				case c == '\\' && at(1) != 0:
					p++
					switch e := line[p]; e {
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
						cur = append(cur, e)
					}
				case c == '"':
					if n := at(1); n != 0 && !isSpace(n) {
						return nil, false
					}
					p++
					break word
				case c == 0:
					return nil, false
				default:
					cur = append(cur, c)
				}
			case inSingle:
				switch {
				case c == '\\' && at(1) == '\'':
					p++
					cur = append(cur, '\'')
				case c == '\'':
					if n := at(1); n != 0 && !isSpace(n) {
						return nil, false
					}
					p++
					break word
				case c == 0:
					return nil, false
				default:
					cur = append(cur, c)
				}
			default:
				switch c {
				case ' ', '\n', '\r', '\t', 0:
					break word
				case '"':
					inDouble = true
				case '\'':
					inSingle = true
				default:
					cur = append(cur, c)
				}
			}
			p++
		}
		args = append(args, string(cur))
	}
}

// isSpace is C's isspace in the C locale.
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c <= 'F':
		return c - 'A' + 10
	default:
		return c - 'a' + 10
	}
}

// parseInt parses a decimal integer as strictly as Redis's string2ll: no
// sign but '-', no leading zeros, no spaces, no "-0", within int64.
func parseInt(s string) (int64, bool) {
	if len(s) == 0 || len(s) >= 21 {
		return 0, false
	}
	if s == "0" {
		return 0, true
	}
	neg := s[0] == '-'
	if neg {
		s = s[1:]
	}
	if len(s) == 0 || s[0] < '1' || s[0] > '9' {
		return 0, false
	}
	var v uint64
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' || v > math.MaxUint64/10 {
			return 0, false
		}
		v *= 10
		d := uint64(c - '0')
		if v > math.MaxUint64-d {
			return 0, false
		}
		v += d
	}
	if neg {
		if v > 1<<63 {
			return 0, false
		}
		return int64(-v), true
	}
	if v > math.MaxInt64 {
		return 0, false
	}
	return int64(v), true
}

// parseMemory parses a byte count the way Redis's memtoull does: digits and
// an optional case-insensitive unit, k=1000, kb=1024, m, mb, g, gb (and b).
// Like memtoull, no digits at all means 0 and a digit run too long for its
// buffer is an error, while an overlong number saturates. A product that
// overflows 64 bits is an error; Redis 7.0 silently wraps it around, which
// no operator means.
func parseMemory(s string) (uint64, bool) {
	s = cString(s)
	if strings.HasPrefix(s, "-") {
		return 0, false
	}
	i := 0
	for i < len(s) && '0' <= s[i] && s[i] <= '9' {
		i++
	}
	var mul uint64
	switch u := s[i:]; {
	case u == "" || asciiEqualFold(u, "b"):
		mul = 1
	case asciiEqualFold(u, "k"):
		mul = 1000
	case asciiEqualFold(u, "kb"):
		mul = 1024
	case asciiEqualFold(u, "m"):
		mul = 1000 * 1000
	case asciiEqualFold(u, "mb"):
		mul = 1024 * 1024
	case asciiEqualFold(u, "g"):
		mul = 1000 * 1000 * 1000
	case asciiEqualFold(u, "gb"):
		mul = 1024 * 1024 * 1024
	default:
		return 0, false
	}
	if i >= 128 {
		return 0, false
	}
	var v uint64
	for _, c := range []byte(s[:i]) {
		d := uint64(c - '0')
		if v > (math.MaxUint64-d)/10 {
			v = math.MaxUint64 // strtoull saturates
			break
		}
		v = v*10 + d
	}
	if v > math.MaxUint64/mul {
		return 0, false
	}
	return v * mul, true
}

// cString cuts s at its first NUL byte, for values Redis reads as C strings.
func cString(s string) string {
	if i := strings.IndexByte(s, 0); i >= 0 {
		return s[:i]
	}
	return s
}

// asciiEqualFold is strcasecmp equality: only ASCII letters fold, so no
// Unicode character (the Kelvin sign, say) can stand in for a letter of a
// setting's name.
func asciiEqualFold(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		if lower(a[i]) != lower(b[i]) {
			return false
		}
	}
	return true
}

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// asciiLower lower-cases ASCII letters only, as sdstolower does, so that
// no other character can stand in for a directive's letter.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		b[i] = lower(c)
	}
	return string(b)
}
