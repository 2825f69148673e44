package acl

import (
	"testing"

	"github.com/cairndb/cairn/internal/glob"
)

// TestKeyPatternMatch: the fast paths answer as the glob matcher does.
func TestKeyPatternMatch(t *testing.T) {
	patterns := []string{"*", "a*", "abc*", "abc", "", "a?c", "a\\*", "[ab]*", "a*c", "**", "a**"}
	keys := []string{"", "a", "ab", "abc", "abcd", "b", "a*", "xabc", "ac"}
	for _, p := range patterns {
		k := newKeyPattern(permAll, p)
		for _, key := range keys {
			if got, want := k.match([]byte(key)), glob.Match([]byte(p), []byte(key), false); got != want {
				t.Errorf("pattern %q, key %q: %v, glob says %v", p, key, got, want)
			}
		}
	}
}

// FuzzKeyPatternMatch compares the fast paths with the glob matcher.
func FuzzKeyPatternMatch(f *testing.F) {
	f.Add("abc*", "abc")
	f.Add("*", "")
	f.Add("a", "a")
	f.Fuzz(func(t *testing.T, p, key string) {
		k := newKeyPattern(permAll, p)
		if got, want := k.match([]byte(key)), glob.Match([]byte(p), []byte(key), false); got != want {
			t.Fatalf("pattern %q, key %q: %v, glob says %v", p, key, got, want)
		}
	})
}
