package acl

import "strings"

// splitArgs splits a line into words the way Redis's sdssplitargs does:
// words separated by white space, "double quotes" with C escapes (\n, \xHH,
// ...) and 'single quotes' with \' only. ok is false for unbalanced quotes
// or a closing quote not followed by space.
func splitArgs(line string) (args []string, ok bool) {
	// A NUL ends the line, as it ends the C string Redis parses.
	if i := strings.IndexByte(line, 0); i >= 0 {
		line = line[:i]
	}
	p := 0
	at := func(i int) byte {
		if i < len(line) {
			return line[i]
		}
		return 0
	}
	for {
		for p < len(line) && isSpace(line[p]) {
			p++
		}
		if p >= len(line) {
			return args, true
		}
		var cur []byte
		inDouble, inSingle := false, false
	word:
		for ; ; p++ {
			c := at(p)
			switch {
			case inDouble:
				switch {
				case c == 0:
					return nil, false
				case c == '\\' && at(p+1) == 'x' && isHex(at(p+2)) && isHex(at(p+3)):
					cur = append(cur, unhex(at(p+2))<<4|unhex(at(p+3)))
					p += 3
				case c == '\\' && at(p+1) != 0:
					p++
					e := line[p]
					switch e {
					case 'n':
						e = '\n'
					case 'r':
						e = '\r'
					case 't':
						e = '\t'
					case 'b':
						e = '\b'
					case 'a':
						e = '\a'
					}
					cur = append(cur, e)
				case c == '"':
					if n := at(p + 1); n != 0 && !isSpace(n) {
						return nil, false
					}
					p++
					break word
				default:
					cur = append(cur, c)
				}
			case inSingle:
				switch {
				case c == 0:
					return nil, false
				case c == '\\' && at(p+1) == '\'':
					p++
					cur = append(cur, '\'')
				case c == '\'':
					if n := at(p + 1); n != 0 && !isSpace(n) {
						return nil, false
					}
					p++
					break word
				default:
					cur = append(cur, c)
				}
			default:
				switch {
				case c == 0 || isSpace(c):
					break word
				case c == '"':
					inDouble = true
				case c == '\'':
					inSingle = true
				default:
					cur = append(cur, c)
				}
			}
		}
		args = append(args, string(cur))
	}
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c >= '0' && c <= '9':
		return c - '0'
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}

// cstr cuts s at a NUL byte, where the C strings Redis compares and
// formats end.
func cstr(s string) string {
	if i := strings.IndexByte(s, 0); i >= 0 {
		return s[:i]
	}
	return s
}

// is reports whether op names word the way Redis's strcasecmp does: up to
// a NUL, folding ASCII letters only (no Unicode folding: the Kelvin sign is
// not a k).
func is(op, word string) bool { return asciiEqualFold(cstr(op), word) }

func asciiEqualFold(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		if asciiLowerByte(a[i]) != asciiLowerByte(b[i]) {
			return false
		}
	}
	return true
}

func asciiLowerByte(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// asciiLower lower-cases ASCII letters only, as Redis's sdstolower.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		b[i] = asciiLowerByte(c)
	}
	return string(b)
}
