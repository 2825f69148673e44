package glob

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

func TestMatch(t *testing.T) {
	tests := []struct {
		pattern, s string
		nocase     bool
		want       bool
	}{
		// Literals.
		{"", "", false, true},
		{"", "a", false, false},
		{"abc", "abc", false, true},
		{"abc", "abd", false, false},
		{"abc", "ab", false, false},
		{"ab", "abc", false, false},
		{"abc", "ABC", false, false},
		{"abc", "ABC", true, true},
		{"a]^-b", "a]^-b", false, true},
		{"\xff\x00", "\xff\x00", false, true},
		{"\xe9", "\xc9", true, false}, // nocase folds ASCII only

		// '*'.
		{"*", "", false, false}, // only the empty pattern matches ""
		{"**", "", false, false},
		{"*", "anything", false, true},
		{"*", "\x00", false, true},
		{"a*", "a", false, true},
		{"a*", "abc", false, true},
		{"a*", "ba", false, false},
		{"*a", "a", false, true},
		{"*a", "bba", false, true},
		{"*a", "ab", false, false},
		{"a*b", "ab", false, true},
		{"a*b", "axxxb", false, true},
		{"a*b", "axxxbc", false, false},
		{"a*b*c", "abc", false, true},
		{"a*b*c", "aXbXc", false, true},
		{"a*b*c", "aXcXb", false, false},
		{"a***b", "aXb", false, true},
		{"a*", "A", true, true},
		{"h*llo", "hello", false, true},
		{"*ab*", "xxabyy", false, true},
		{"a*a*a*b", "aaaaab", false, true},
		{"a*a*a*b", "aaaaa", false, false},
		{"*?", "a", false, true},
		{"?*", "a", false, true},
		{"a*?", "a", false, false},

		// '?'.
		{"?", "a", false, true},
		{"?", "", false, false},
		{"?", "ab", false, false},
		{"h?llo", "hallo", false, true},
		{"h?llo", "hllo", false, false},
		{"??", "\xff\x00", false, true},

		// Classes.
		{"[abc]", "a", false, true},
		{"[abc]", "c", false, true},
		{"[abc]", "d", false, false},
		{"[abc]", "A", false, false},
		{"[abc]", "A", true, true},
		{"[ABC]", "a", true, true},
		{"[abc]", "", false, false},
		{"[abc]", "ab", false, false},
		{"h[ae]llo", "hello", false, true},
		{"h[ae]llo", "hillo", false, false},
		{"[^abc]", "d", false, true},
		{"[^abc]", "a", false, false},
		{"[^abc]", "A", true, false},
		{"h[^e]llo", "hallo", false, true},
		{"h[^e]llo", "hello", false, false},
		{"[a-c]", "b", false, true},
		{"[a-c]", "d", false, false},
		{"[c-a]", "b", false, true}, // reversed ranges are swapped
		{"[c-a]", "d", false, false},
		{"[a-c]", "B", true, true},
		{"[A-C]", "b", true, true},
		{"[Z-a]", "_", false, true},   // Z=0x5a .. a=0x61
		{"[Z-a]", "_", true, false},   // folding after the swap empties it
		{"[Z-a]", "z", true, false},   // ...entirely
		{"[0-9x]", "x", false, true},  // range then member
		{"[x0-9]", "5", false, true},  // member then range
		{"[-a]", "-", false, true},    // leading '-' is a member
		{"[a-]", "-", false, false},   // trailing '-' ranges up to ']'...
		{"[a-]", "]", false, true},    // ...']' (0x5d) to 'a' (0x61)
		{"[a-]", "^", false, true},    //
		{"[a-]x", "^", false, true},   // ...and the class swallows the rest
		{"[a-]x", "^x", false, false}, //
		{"[a-]]", "]", false, true},   // a second ']' closes it
		{"[a-]]x", "]x", false, true}, //
		{"[]", "]", false, false},     // empty class, never matches
		{"[]a]", "]", false, false},   // ']' first closes immediately...
		{"[]a]", "]a]", false, false}, // ...leaving "a]" as literals after it
		{"[^]", "x", false, true},     // negated empty class matches any byte
		{"[^]a", "xa", false, true},
		{"[\\]]", "]", false, true}, // escaped ']' is a member
		{"[\\]]", "\\", false, false},
		{"[\\^a]", "^", false, true},
		{"[\\-a]", "-", false, true},
		{"[\\-a]", "b", false, false},
		{"[\\a-c]", "b", false, false}, // "\a" then "-c" as members
		{"[\\a-c]", "-", false, true},
		{"[\\a-c]", "c", false, true},
		{"[\\A]", "a", true, false}, // escaped members ignore nocase
		{"[\\A]", "A", true, true},
		{"[a\\", "\\", false, true}, // a trailing '\' in a class is a member
		{"[a\\", "a", false, true},
		{"[\\", "\\", false, true},
		{"[^\\", "\\", false, false},
		{"[^\\", "a", false, true},

		// Unclosed classes run to the end of the pattern.
		{"[", "a", false, false},
		{"[", "[", false, false},
		{"[^", "a", false, true},
		{"[abc", "b", false, true},
		{"[abc", "bc", false, false},
		{"a[bc", "ab", false, true},
		{"[^abc", "d", false, true},
		{"[a-", "-", false, true}, // "a-" has no upper bound: two members
		{"[a-", "a", false, true},

		// Bytes >= 0x80 compare as signed char in ranges.
		{"[\x80-\xff]", "\x90", false, true},
		{"[\x80-\xff]", "a", false, false},
		{"[a-\xff]", "\x90", false, false}, // swapped to \xff..a: -1..97
		{"[a-\xff]", "\xff", false, true},
		{"[a-\xff]", "\x00", false, true},
		{"[a-\xff]", "a", false, true},
		{"[a-\xff]", "b", false, false},
		{"[\x00-\x7f]", "\x80", false, false},

		// Escapes outside classes.
		{"\\*", "*", false, true},
		{"\\*", "a", false, false},
		{"\\?", "?", false, true},
		{"\\?", "a", false, false},
		{"\\[a]", "[a]", false, true},
		{"\\\\", "\\", false, true},
		{"\\a", "a", false, true},
		{"\\a", "A", true, true},    // outside classes escapes do fold
		{"a\\", "a\\", false, true}, // trailing '\' is a literal
		{"\\", "\\", false, true},
		{"\\", "", false, false},
		{"a\\*b", "a*b", false, true},
		{"a\\*b", "axb", false, false},

		// Trailing stars are stripped once the string runs out.
		{"abc*", "abc", false, true},
		{"abc**", "abc", false, true},
		{"ab*c*", "abc", false, true},
		{"abc*?", "abc", false, false},
		{"abc[", "abc", false, false},
	}
	for _, tt := range tests {
		got := Match([]byte(tt.pattern), []byte(tt.s), tt.nocase)
		if got != tt.want {
			t.Errorf("Match(%q, %q, nocase=%v) = %v, want %v", tt.pattern, tt.s, tt.nocase, got, tt.want)
		}
		if gotS := MatchString(tt.pattern, tt.s, tt.nocase); gotS != got {
			t.Errorf("MatchString(%q, %q, %v) = %v, Match = %v", tt.pattern, tt.s, tt.nocase, gotS, got)
		}
		if !strings.Contains(tt.pattern, strings.Repeat("*", 1001)) {
			if ref := refMatch([]byte(tt.pattern), []byte(tt.s), tt.nocase); ref != tt.want {
				t.Errorf("reference matcher disagrees with the table on (%q, %q, %v): %v", tt.pattern, tt.s, tt.nocase, ref)
			}
		}
	}
}

func TestMatchNestingLimit(t *testing.T) {
	s := []byte(strings.Repeat("a", 1100))
	tests := []struct {
		stars int
		want  bool
	}{
		{999, true},
		{1000, true},
		{1001, false}, // the 1001st nested '*' is past Redis's limit
		{1100, false},
	}
	for _, tt := range tests {
		p := []byte(strings.Repeat("*a", tt.stars))
		if got := Match(p, s, false); got != tt.want {
			t.Errorf("Match(\"*a\"x%d, \"a\"x1100) = %v, want %v", tt.stars, got, tt.want)
		}
	}
	// Runs of '*' collapse and do not count towards the depth.
	p := []byte(strings.Repeat("*", 5000) + "a")
	if !Match(p, []byte("xa"), false) {
		t.Errorf("a long run of '*' must act as one")
	}
}

func TestMatchPathologicalPatternsAreFast(t *testing.T) {
	tests := []struct{ pattern, s string }{
		{"a*a*a*a*a*a*a*a*b", strings.Repeat("a", 10000)},
		{strings.Repeat("a*", 200) + "b", strings.Repeat("a", 5000)},
		{strings.Repeat("*?", 300) + "b", strings.Repeat("a", 5000)},
		{strings.Repeat("*[a-z]", 300) + "b", strings.Repeat("a", 5000)},
	}
	for _, tt := range tests {
		start := time.Now()
		if Match([]byte(tt.pattern), []byte(tt.s), false) {
			t.Errorf("Match(%.20q..., %.10q...) = true, want false", tt.pattern, tt.s)
		}
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("Match(%.20q..., %.10q...) took %v; backtracking is not bounded", tt.pattern, tt.s, d)
		}
	}
}

func TestMatchesAll(t *testing.T) {
	tests := []struct {
		pattern string
		want    bool
	}{
		{"*", true},
		{"**", false},
		{"", false},
		{"\\*", false},
		{"a*", false},
	}
	for _, tt := range tests {
		if got := MatchesAll([]byte(tt.pattern)); got != tt.want {
			t.Errorf("MatchesAll(%q) = %v, want %v", tt.pattern, got, tt.want)
		}
	}
}

func TestLiteral(t *testing.T) {
	tests := []struct {
		pattern string
		want    bool
	}{
		{"", true},
		{"user:1000", true},
		{"a]b^c-d", true},
		{"\xff\x00", true},
		{"user:*", false},
		{"user:?", false},
		{"user:[12]", false},
		{"user\\:1", false},
		{"trailing\\", false},
	}
	for _, tt := range tests {
		if got := Literal([]byte(tt.pattern)); got != tt.want {
			t.Errorf("Literal(%q) = %v, want %v", tt.pattern, got, tt.want)
		}
	}
}

func TestLiteralPrefix(t *testing.T) {
	tests := []struct {
		pattern, want string
	}{
		{"", ""},
		{"abc", "abc"},
		{"*", ""},
		{"?abc", ""},
		{"[a]bc", ""},
		{"user:*", "user:"},
		{"user:?x", "user:"},
		{"user:[ab]", "user:"},
		{"a]b*", "a]b"},
		{"a\\*b*", "a*b"},
		{"a\\*b", "a*b"},
		{"\\[x]*", "[x]"},
		{"a\\\\*", "a\\"},
		{"a\\", "a\\"},
		{"\\", "\\"},
		{"a\\b\\", "ab\\"},
		{"a\\?\\[c?d", "a?[c"},
	}
	for _, tt := range tests {
		got := LiteralPrefix([]byte(tt.pattern))
		if string(got) != tt.want {
			t.Errorf("LiteralPrefix(%q) = %q, want %q", tt.pattern, got, tt.want)
		}
	}
}

// TestLiteralPrefixBoundsMatches checks the property the server relies on:
// every string a pattern matches starts with the pattern's literal prefix,
// and a Literal pattern matches itself and nothing else.
func TestLiteralPrefixBoundsMatches(t *testing.T) {
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(uint64(seed), 0))
	subjects := allStrings("ab*?[\\", 3)
	for range 3000 {
		p := randomPattern(rng, "ab*?[]^-\\", 6)
		prefix := LiteralPrefix(p)
		for _, s := range subjects {
			m := Match(p, s, false)
			if m && !bytes.HasPrefix(s, prefix) {
				t.Fatalf("Match(%q, %q) but the string lacks LiteralPrefix %q", p, s, prefix)
			}
			if Literal(p) && m != bytes.Equal(p, s) {
				t.Fatalf("Literal(%q) but Match(%q, %q) = %v", p, p, s, m)
			}
		}
	}
}

// TestMatchAgainstReference compares Match with refMatch, a matcher built the
// other way round (tokenize the pattern, then dynamic programming), over
// random patterns and strings. It checks the backtracking shortcut never
// changes an answer.
func TestMatchAgainstReference(t *testing.T) {
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(uint64(seed), 1))
	const alphabet = "aAbZ_*?[]^-\\\x80\xff"
	for range 200000 {
		p := randomPattern(rng, alphabet, 8)
		s := randomPattern(rng, "aAbZ_*?[]^-\\\x80\xff", 6)
		nocase := rng.IntN(2) == 0
		if got, want := Match(p, s, nocase), refMatch(p, s, nocase); got != want {
			t.Fatalf("Match(%q, %q, %v) = %v, reference says %v", p, s, nocase, got, want)
		}
	}
}

func TestMatchDoesNotAllocate(t *testing.T) {
	p := []byte("user:[0-9]*:sess?on*")
	s := []byte("user:1234:session:abc")
	if n := testing.AllocsPerRun(100, func() { Match(p, s, false) }); n != 0 {
		t.Errorf("Match allocates %v times per call", n)
	}
	if n := testing.AllocsPerRun(100, func() { LiteralPrefix(p) }); n != 0 {
		t.Errorf("LiteralPrefix without escapes allocates %v times per call", n)
	}
}

func FuzzMatch(f *testing.F) {
	seeds := []struct{ p, s string }{
		{"", ""},
		{"*", ""},
		{"*", "abc"},
		{"a*b?c", "axxbyc"},
		{"[a-z]*", "hello"},
		{"[^a-z]", "A"},
		{"[z-a]", "m"},
		{"[a-]", "]"},
		{"[\\]]", "]"},
		{"[", "["},
		{"[^", "x"},
		{"\\", "\\"},
		{"a\\*", "a*"},
		{"a*a*a*a*a*a*a*a*b", strings.Repeat("a", 64)},
		{"[\x80-\xff]", "\x90"},
		{"plain", "plain"},
	}
	for _, sd := range seeds {
		f.Add([]byte(sd.p), []byte(sd.s), false)
		f.Add([]byte(sd.p), []byte(sd.s), true)
	}
	f.Fuzz(func(t *testing.T, p, s []byte, nocase bool) {
		got := Match(p, s, nocase)
		if got != MatchString(string(p), string(s), nocase) {
			t.Fatalf("Match and MatchString disagree on (%q, %q, %v)", p, s, nocase)
		}
		if Literal(p) && !nocase && got != bytes.Equal(p, s) {
			t.Fatalf("literal pattern %q: Match(%q) = %v", p, s, got)
		}
		if got && !nocase && !bytes.HasPrefix(s, LiteralPrefix(p)) {
			t.Fatalf("Match(%q, %q) but the string lacks LiteralPrefix %q", p, s, LiteralPrefix(p))
		}
		// The reference is exponential in neither input but quadratic in
		// both; keep it to sizes where it stays fast.
		if len(p) <= 64 && len(s) <= 64 {
			if want := refMatch(p, s, nocase); got != want {
				t.Fatalf("Match(%q, %q, %v) = %v, reference says %v", p, s, nocase, got, want)
			}
		}
	})
}

// refMatch is an independent model of stringmatchlen: the pattern is first
// cut into tokens, each token knows which bytes it accepts, and a dynamic
// program over (token, position) decides the match. It shares no code with
// match. It ignores the nesting limit, which needs over 1000 '*' groups.
func refMatch(p, s []byte, nocase bool) bool {
	toks := tokenize(p, nocase)
	if len(s) == 0 {
		// stringmatchlen's loop never runs, so only "" matches "".
		return len(p) == 0
	}
	// reach[j] reports whether the tokens consumed so far can end at s[j:].
	reach := make([]bool, len(s)+1)
	reach[0] = true
	for _, tk := range toks {
		next := make([]bool, len(s)+1)
		if tk.star {
			seen := false
			for j := range reach {
				seen = seen || reach[j]
				next[j] = seen
			}
		} else {
			for j := 0; j < len(s); j++ {
				if reach[j] && tk.set[s[j]] {
					next[j+1] = true
				}
			}
		}
		reach = next
	}
	return reach[len(s)]
}

type token struct {
	star bool
	set  [256]bool
}

func tokenize(p []byte, nocase bool) []token {
	var toks []token
	for i := 0; i < len(p); i++ {
		var tk token
		switch p[i] {
		case '*':
			tk.star = true
		case '?':
			for c := range tk.set {
				tk.set[c] = true
			}
		case '[':
			i = classToken(p, i, nocase, &tk)
		case '\\':
			if i+1 < len(p) {
				i++
			}
			literalToken(p[i], nocase, &tk)
		default:
			literalToken(p[i], nocase, &tk)
		}
		toks = append(toks, tk)
	}
	return toks
}

func literalToken(b byte, nocase bool, tk *token) {
	for c := range 256 {
		if c == int(b) || (nocase && foldASCII(byte(c)) == foldASCII(b)) {
			tk.set[c] = true
		}
	}
}

func foldASCII(b byte) byte {
	if 'A' <= b && b <= 'Z' {
		return b + 32
	}
	return b
}

// classToken fills tk from the class at p[open] and returns the index of the
// class's last byte.
func classToken(p []byte, open int, nocase bool, tk *token) int {
	j := open + 1
	neg := j < len(p) && p[j] == '^'
	if neg {
		j++
	}
	var set [256]bool
	end := len(p) - 1
	for j < len(p) {
		if p[j] == '\\' && j+1 < len(p) {
			set[p[j+1]] = true
			j += 2
			continue
		}
		if p[j] == ']' {
			end = j
			break
		}
		if j+2 < len(p) && p[j+1] == '-' {
			a, b := int8(p[j]), int8(p[j+2])
			lo, hi := min(a, b), max(a, b)
			for c := range 256 {
				x := int8(c)
				if nocase {
					lo2, hi2, x2 := int8(foldASCII(byte(lo))), int8(foldASCII(byte(hi))), int8(foldASCII(byte(x)))
					if x2 >= lo2 && x2 <= hi2 {
						set[c] = true
					}
				} else if x >= lo && x <= hi {
					set[c] = true
				}
			}
			j += 3
			continue
		}
		for c := range 256 {
			if c == int(p[j]) || (nocase && foldASCII(byte(c)) == foldASCII(p[j])) {
				set[c] = true
			}
		}
		j++
	}
	for c := range 256 {
		tk.set[c] = set[c] != neg
	}
	return end
}

// randomPattern draws up to maxLen bytes from alphabet.
func randomPattern(rng *rand.Rand, alphabet string, maxLen int) []byte {
	n := rng.IntN(maxLen + 1)
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[rng.IntN(len(alphabet))]
	}
	return b
}

// allStrings lists every string over alphabet of length 0..maxLen.
func allStrings(alphabet string, maxLen int) [][]byte {
	out := [][]byte{{}}
	prev := [][]byte{{}}
	for range maxLen {
		var next [][]byte
		for _, p := range prev {
			for i := 0; i < len(alphabet); i++ {
				s := append(append([]byte{}, p...), alphabet[i])
				next = append(next, s)
			}
		}
		out = append(out, next...)
		prev = next
	}
	return out
}
