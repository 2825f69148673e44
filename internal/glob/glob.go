// Package glob is Redis's glob-style pattern matcher: the one behind KEYS,
// SCAN MATCH, PSUBSCRIBE, CONFIG GET and ACL key patterns. It reproduces
// stringmatchlen from Redis 7's src/util.c byte for byte, quirks included,
// because a client that sends the same pattern must get the same keys back.
//
// The dialect:
//
//   - '*' matches any run of bytes; runs of '*' act as one.
//   - '?' matches exactly one byte.
//   - '[abc]' matches one byte of the set, '[^abc]' one byte outside it.
//     'a-z' inside a class is a range; a reversed range 'z-a' is swapped, and
//     the bounds compare as C's signed char, so bytes >= 0x80 sort below
//     ASCII. '\x' inside a class is the literal x and ignores nocase. ']'
//     closes the class, so it can only be a member when escaped. A class with
//     no closing ']' runs to the end of the pattern. A '-' right before the
//     closing ']' still forms a range, with ']' as its upper bound, which
//     leaves the class unclosed.
//   - '\x' outside a class is the literal x; a trailing '\' is a literal '\'.
//   - Everything else is a literal byte; with nocase, ASCII letters fold.
//
// Quirks a caller must know:
//
//   - Only the empty pattern matches the empty string: Match("*", "") is
//     false. KEYS and SCAN never ask that question for the pattern "*"
//     because they treat it as "every key" without calling the matcher;
//     MatchesAll reports that case so callers can do the same.
//   - Matching gives up (reports no match) once '*' recursion is more than
//     1000 levels deep, as Redis does to bound its stack. A pattern needs more
//     than 1000 separate '*' groups for that to matter.
//
// Backtracking is linear per '*': when the rest of the pattern after a '*'
// fails at every later position, no earlier '*' can do better, so the whole
// match stops (Redis's skipLongerMatches). A pattern such as
// "a*a*a*a*a*a*a*a*b" against a long run of 'a's is therefore quadratic, not
// exponential.
//
// The matcher never allocates and never retains its arguments.
package glob

// maxNesting is the '*' recursion depth past which Redis reports no match.
const maxNesting = 1000

// Match reports whether s matches pattern, following Redis's stringmatchlen.
// nocase folds ASCII letters, as CONFIG GET does; KEYS, SCAN and PSUBSCRIBE
// match case-sensitively.
func Match(pattern, s []byte, nocase bool) bool {
	skip := false
	return match(pattern, s, nocase, &skip, 0)
}

// MatchString is Match for strings.
func MatchString(pattern, s string, nocase bool) bool {
	skip := false
	return match(pattern, s, nocase, &skip, 0)
}

// MatchesAll reports whether pattern is the bare "*" that KEYS and SCAN treat
// as selecting every key without calling the matcher. It matters only for the
// empty key, which Match("*", "") would reject.
func MatchesAll(pattern []byte) bool {
	return len(pattern) == 1 && pattern[0] == '*'
}

// Literal reports whether pattern contains none of the bytes that are special
// to the matcher ('*', '?', '[', '\'). Such a pattern matches exactly one
// string, the pattern itself (when nocase is false), so a KEYS or SCAN MATCH
// with it can become a point lookup.
func Literal(pattern []byte) bool {
	for _, c := range pattern {
		if isSpecial(c) {
			return false
		}
	}
	return true
}

// LiteralPrefix returns the bytes every string matched by pattern (with
// nocase false) must start with: the pattern up to its first unescaped '*',
// '?' or '[', with backslash escapes removed. When the pattern holds no
// escape before that point the result aliases pattern; otherwise it is a new
// slice. The prefix bounds a range scan for KEYS and SCAN MATCH.
func LiteralPrefix(pattern []byte) []byte {
	for i, c := range pattern {
		switch c {
		case '*', '?', '[':
			return pattern[:i]
		case '\\':
			return unescapePrefix(pattern, i)
		}
	}
	return pattern
}

// unescapePrefix finishes LiteralPrefix from pattern[i], the first backslash.
func unescapePrefix(pattern []byte, i int) []byte {
	out := make([]byte, i, len(pattern))
	copy(out, pattern[:i])
	for i < len(pattern) {
		c := pattern[i]
		switch c {
		case '*', '?', '[':
			return out
		case '\\':
			// A trailing backslash has nothing to escape and matches itself.
			if i+1 < len(pattern) {
				i++
				c = pattern[i]
			}
		}
		out = append(out, c)
		i++
	}
	return out
}

func isSpecial(c byte) bool {
	return c == '*' || c == '?' || c == '[' || c == '\\'
}

// match is stringmatchlen_impl. skip is shared by every level of one match:
// once set, every enclosing '*' stops trying longer prefixes.
func match[T ~string | ~[]byte](p, s T, nocase bool, skip *bool, nesting int) bool {
	if nesting > maxNesting {
		return false
	}
	for len(p) > 0 && len(s) > 0 {
		switch p[0] {
		case '*':
			for len(p) > 1 && p[1] == '*' {
				p = p[1:]
			}
			if len(p) == 1 {
				return true
			}
			// The rest of the pattern is never tried against the empty
			// remainder: it starts with a byte-consuming token, so it cannot
			// match there.
			for len(s) > 0 {
				if match(p[1:], s, nocase, skip, nesting+1) {
					return true
				}
				if *skip {
					return false
				}
				s = s[1:]
			}
			*skip = true
			return false
		case '?':
			s = s[1:]
		case '[':
			ok, end := matchClass(p, s[0], nocase)
			if !ok {
				return false
			}
			p = p[end:]
			s = s[1:]
		case '\\':
			if len(p) >= 2 {
				p = p[1:]
			}
			if !equalByte(p[0], s[0], nocase) {
				return false
			}
			s = s[1:]
		default:
			if !equalByte(p[0], s[0], nocase) {
				return false
			}
			s = s[1:]
		}
		p = p[1:]
		if len(s) == 0 {
			for len(p) > 0 && p[0] == '*' {
				p = p[1:]
			}
			break
		}
	}
	return len(p) == 0 && len(s) == 0
}

// matchClass matches c against the class that opens at p[0] == '['. It
// returns the index of the class's last byte: the closing ']', or the
// pattern's final byte when the class is never closed.
func matchClass[T ~string | ~[]byte](p T, c byte, nocase bool) (ok bool, end int) {
	i := 1
	negate := i < len(p) && p[i] == '^'
	if negate {
		i++
	}
	matched := false
	for {
		rest := len(p) - i
		if rest >= 2 && p[i] == '\\' {
			i++
			// An escaped member compares exactly, even under nocase.
			if p[i] == c {
				matched = true
			}
		} else if rest == 0 {
			i--
			break
		} else if p[i] == ']' {
			break
		} else if rest >= 3 && p[i+1] == '-' {
			lo, hi, x := signed(p[i]), signed(p[i+2]), signed(c)
			if lo > hi {
				lo, hi = hi, lo
			}
			// Folding after the swap is what Redis does, so a nocase range
			// such as [Z-a] ends up empty.
			if nocase {
				lo, hi, x = lower(lo), lower(hi), lower(x)
			}
			i += 2
			if x >= lo && x <= hi {
				matched = true
			}
		} else if equalByte(p[i], c, nocase) {
			matched = true
		}
		i++
	}
	if negate {
		matched = !matched
	}
	return matched, i
}

// signed widens a byte the way C widens a plain char on the platforms Redis
// ships for, which decides how ranges with bytes >= 0x80 compare.
func signed(b byte) int {
	return int(int8(b))
}

// lower is C's tolower in the "C" locale, which only knows ASCII.
func lower(c int) int {
	if c >= 'A' && c <= 'Z' {
		return c + ('a' - 'A')
	}
	return c
}

func equalByte(a, b byte, nocase bool) bool {
	if a == b {
		return true
	}
	return nocase && lower(int(a)) == lower(int(b))
}
