package acl

import "testing"

// BenchmarkCheck is what one command's check costs: the unrestricted
// default user, and a restricted user whose GET goes through the command
// bitset and two key patterns.
func BenchmarkCheck(b *testing.B) {
	cat := testCatalog()
	r := NewRegistry(cat)
	u := mustSetB(b, r, "u", "on", "+@all", "-flushdb", "%R~key:*", "%W~key:*", "~other:*")
	get := cat.Lookup("get")
	args := [][]byte{[]byte("GET"), []byte("key:000000000042")}
	for _, bc := range []struct {
		name string
		p    *Profile
	}{{"default", r.Default().Profile()}, {"restricted", u.Profile()}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			var sc Scratch
			for b.Loop() {
				if r, _ := bc.p.CheckWith(get, args, &sc); r != OK {
					b.Fatal(r)
				}
			}
		})
	}
}

func mustSetB(b *testing.B, r *Registry, name string, ops ...string) *User {
	u, _, err := r.SetUser(name, ops)
	if err != nil {
		b.Fatal(err)
	}
	return u
}
