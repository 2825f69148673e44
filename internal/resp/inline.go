package resp

// splitInline splits an inline request line into arguments the way Redis's
// sdssplitargs does, appending each argument's bytes to arena and its
// bounds to spans. It reports false for unbalanced quotes.
//
// The rules, which redis-cli also uses:
//   - arguments are separated by whitespace (space, \t, \n, \v, \f, \r),
//     though inside an unquoted argument only space, \t, \n and \r end it;
//   - "double quotes" understand \n \r \t \b \a, \xHH, and a backslash
//     before any other byte stands for that byte;
//   - 'single quotes' understand only \';
//   - quotes may start in the middle of an argument (a"b c" is "ab c"), but a
//     closing quote must be followed by whitespace or the end of the line;
//   - "" is an empty argument.
//
// sdssplitargs works on a C string, so a NUL ends the line. The Reader never
// passes a line containing NUL, and here NUL is treated as the end too.
func splitInline(line, arena []byte, spans []span) ([]byte, []span, bool) {
	at := func(i int) byte {
		if i < len(line) {
			return line[i]
		}
		return 0
	}
	i := 0
	for {
		for isSpace(at(i)) {
			i++
		}
		if at(i) == 0 {
			return arena, spans, true
		}
		off := len(arena)
		inDouble, inSingle := false, false
		for done := false; !done; {
			c := at(i)
			switch {
			case inDouble:
				switch {
				case c == '\\' && at(i+1) == 'x' && isHex(at(i+2)) && isHex(at(i+3)):
					arena = append(arena, unhex(at(i+2))<<4|unhex(at(i+3)))
					i += 3
				case c == '\\' && at(i+1) != 0:
					i++
					arena = append(arena, unescape(at(i)))
				case c == '"':
					if next := at(i + 1); next != 0 && !isSpace(next) {
						return arena, spans, false
					}
					done = true
				case c == 0:
					return arena, spans, false
				default:
					arena = append(arena, c)
				}
			case inSingle:
				switch {
				case c == '\\' && at(i+1) == '\'':
					i++
					arena = append(arena, '\'')
				case c == '\'':
					if next := at(i + 1); next != 0 && !isSpace(next) {
						return arena, spans, false
					}
					done = true
				case c == 0:
					return arena, spans, false
				default:
					arena = append(arena, c)
				}
			default:
				switch c {
				case ' ', '\n', '\r', '\t', 0:
					done = true
				case '"':
					inDouble = true
				case '\'':
					inSingle = true
				default:
					arena = append(arena, c)
				}
			}
			if at(i) != 0 {
				i++
			}
		}
		spans = append(spans, span{off: off, end: len(arena)})
	}
}

// isSpace is C's isspace in the "C" locale.
func isSpace(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\v', '\f', '\r':
		return true
	}
	return false
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

func unescape(c byte) byte {
	switch c {
	case 'n':
		return '\n'
	case 'r':
		return '\r'
	case 't':
		return '\t'
	case 'b':
		return '\b'
	case 'a':
		return '\a'
	}
	return c
}
