package lualib

import "testing"

// TestAgainstRedis runs every case through Redis's own Lua (see
// startReference) and through gopher-lua with OpenAll, and wants the same
// text from both; it also proves each case's recorded want is Redis's.
func TestAgainstRedis(t *testing.T) {
	ref := startReference(t)
	for _, group := range [][]libCase{cjsonCases, cmsgpackCases, bitCases, structCases, redisSuiteCases} {
		for _, c := range group {
			want := ref(c.code)
			if got := runOurs(t, c.code); got != want {
				t.Errorf("%s: %s\n ours:  %s\n redis: %s", c.name, c.code, got, want)
			}
			if c.want != want {
				t.Errorf("%s: the recorded want is not what Redis gives\n want:  %s\n redis: %s", c.name, c.want, want)
			}
		}
	}
}
