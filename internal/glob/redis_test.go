package glob

import (
	"bytes"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/cairndb/cairn/internal/redistest"
)

// TestMatchAgainstRedis compares Match with KEYS on a real redis-server over
// a fixed key set: hand-picked patterns first, then random ones drawn from a
// small alphabet rich in special bytes.
func TestMatchAgainstRedis(t *testing.T) {
	c := redistest.Start(t)

	keys := [][]byte{{}} // the empty key tells "*" apart from "**"
	keys = append(keys, allStrings("ab*?[]^-\\A\x80\xff", 2)[1:]...)
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(uint64(seed), 2))
	for range 300 {
		k := randomPattern(rng, "abAB*?[]^-\\\x80\xff", 6)
		if len(k) > 0 {
			keys = append(keys, k)
		}
	}
	for _, k := range keys {
		if _, err := c.Do("SET", k, "1"); err != nil {
			t.Fatalf("SET %q: %v", k, err)
		}
	}
	n, err := c.Do("DBSIZE")
	if err != nil {
		t.Fatal(err)
	}
	distinct := map[string]bool{}
	for _, k := range keys {
		distinct[string(k)] = true
	}
	if n != int64(len(distinct)) {
		t.Fatalf("DBSIZE = %v, want %d", n, len(distinct))
	}

	patterns := []string{
		"*", "**", "", "a", "?", "??", "*a", "a*", "*a*", "a*b", "[ab]", "[^ab]",
		"[a-b]", "[b-a]", "[A-a]", "[a-]", "[a-]]", "[]", "[^]", "[", "[^", "[a",
		"[\\]]", "[\\", "[a\\", "\\", "a\\", "\\*", "\\?", "\\[", "*\\", "[\x80-\xff]",
		"[a-\xff]", "[\xff-a]", "[-a]", "[]a]", "*[", "?[", "[*]", "[?]",
	}
	matches := 0
	for _, p := range patterns {
		matches += comparePattern(t, c, keys, []byte(p))
	}
	for range 3000 {
		matches += comparePattern(t, c, keys, randomPattern(rng, "ab*?[]^-\\A\x80\xff", 7))
		if t.Failed() {
			t.FailNow()
		}
	}
	// Guard against a comparison that passes because nothing ever matches.
	if matches < 10000 {
		t.Errorf("only %d (pattern, key) matches; the key set or patterns are too sparse", matches)
	}
}

// comparePattern checks one pattern against every key and returns how many
// keys Redis matched.
func comparePattern(t *testing.T, c *redistest.Conn, keys [][]byte, pattern []byte) int {
	t.Helper()
	reply, err := c.Do("KEYS", pattern)
	if err != nil {
		t.Fatalf("KEYS %q: %v", pattern, err)
	}
	got := map[string]bool{}
	for _, k := range reply.([]any) {
		got[string(k.([]byte))] = true
	}
	for _, k := range keys {
		ours := MatchesAll(pattern) || Match(pattern, k, false)
		if ours != got[string(k)] {
			t.Errorf("pattern %q, key %q: Match = %v, Redis KEYS = %v", pattern, k, ours, got[string(k)])
		}
	}
	return len(got)
}

// TestMatchNocaseAgainstRedis checks case folding through CONFIG GET, the
// one command that matches with nocase: its patterns run against every
// configuration name, aliases included.
func TestMatchNocaseAgainstRedis(t *testing.T) {
	c := redistest.Start(t)

	all, err := c.Do("CONFIG", "GET", "*")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for i, v := range all.([]any) {
		if i%2 == 0 {
			names = append(names, string(v.([]byte)))
		}
	}
	if len(names) < 50 {
		t.Fatalf("CONFIG GET * returned only %d names", len(names))
	}

	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(uint64(seed), 3))
	hits := 0
	for range 1500 {
		p := mutateName(rng, names[rng.IntN(len(names))])
		// CONFIG GET looks a pattern with none of "*?[" up directly instead
		// of matching it.
		if !bytes.ContainsAny(p, "*?[") {
			continue
		}
		reply, err := c.Do("CONFIG", "GET", p)
		if err != nil {
			t.Fatalf("CONFIG GET %q: %v", p, err)
		}
		got := map[string]bool{}
		for i, v := range reply.([]any) {
			if i%2 == 0 {
				got[string(v.([]byte))] = true
			}
		}
		for _, name := range names {
			if ours := Match(p, []byte(name), true); ours != got[name] {
				t.Fatalf("pattern %q, name %q: Match(nocase) = %v, Redis CONFIG GET = %v", p, name, ours, got[name])
			}
		}
		hits += len(got)
	}
	if hits < 300 {
		t.Errorf("only %d (pattern, name) matches; the patterns are too far from real names", hits)
	}
}

// mutateName turns a configuration name into a pattern likely to match some
// names: letters change case, and runs become '*', '?' or a class.
func mutateName(rng *rand.Rand, name string) []byte {
	var p []byte
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch r := rng.IntN(20); {
		case r == 0:
			p = append(p, '*')
			i += rng.IntN(4)
		case r == 1:
			p = append(p, '?')
		case r == 2:
			lo, hi := c, byte('a'+rng.IntN(26))
			if rng.IntN(2) == 0 {
				lo, hi = hi, lo
			}
			p = append(p, '[', upperMaybe(rng, lo), '-', upperMaybe(rng, hi), ']')
		case r == 3:
			p = append(p, '[', '^', byte('a'+rng.IntN(26)), ']')
		case r == 4:
			p = append(p, '\\', upperMaybe(rng, c))
		case r < 9:
			p = append(p, upperMaybe(rng, c))
		default:
			p = append(p, c)
		}
	}
	if rng.IntN(3) == 0 {
		p = append(p, '*')
	}
	return p
}

func upperMaybe(rng *rand.Rand, c byte) byte {
	if c >= 'a' && c <= 'z' && rng.IntN(2) == 0 {
		return c - 32
	}
	return c
}
