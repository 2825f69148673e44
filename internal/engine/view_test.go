package engine

import (
	"errors"
	"fmt"
	"testing"
)

func commitKV(t testing.TB, p *Pebble, kv ...string) {
	t.Helper()
	b := p.NewBatch()
	defer b.Close()
	for i := 0; i < len(kv); i += 2 {
		var err error
		if kv[i+1] == "" {
			err = b.Delete([]byte(kv[i]))
		} else {
			err = b.Set([]byte(kv[i]), []byte(kv[i+1]))
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Commit(false); err != nil {
		t.Fatal(err)
	}
}

func iterKeys(t *testing.T, r Reader, lo, hi string) []string {
	t.Helper()
	it, err := r.NewIter([]byte(lo), []byte(hi))
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	var got []string
	for ok := it.First(); ok; ok = it.Next() {
		got = append(got, string(it.Key())+"="+string(it.Value()))
	}
	if err := it.Error(); err != nil {
		t.Fatal(err)
	}
	return got
}

// TestViewIsFrozenAtFirstRead checks a view's contract: every Get and
// iterator sees the state of the view's first read, whatever is committed
// after it, and Get finds exact keys only.
func TestViewIsFrozenAtFirstRead(t *testing.T) {
	for _, first := range []string{"get", "iter"} {
		t.Run(first, func(t *testing.T) {
			p := openMem(t)
			commitKV(t, p, "k", "old", "ab", "1", "m1", "a", "m2", "b")
			v := p.NewView()
			defer v.Close()
			// Before the first read: the view is not fixed yet.
			commitKV(t, p, "k", "v1")
			if first == "get" {
				if got, err := v.Get([]byte("k"), nil); err != nil || string(got) != "v1" {
					t.Fatalf("first Get = %q, %v", got, err)
				}
			} else if got := fmt.Sprint(iterKeys(t, v, "m", "n")); got != "[m1=a m2=b]" {
				t.Fatalf("first iterator = %s", got)
			}
			commitKV(t, p, "k", "v2", "m1", "", "m3", "c", "a", "new")
			if got, err := v.Get([]byte("k"), nil); err != nil || string(got) != "v1" {
				t.Fatalf("Get after a commit = %q, %v, want v1", got, err)
			}
			for _, absent := range []string{"a", "m3", "m", "k\x00", ""} {
				if got, err := v.Get([]byte(absent), nil); !errors.Is(err, ErrNotFound) {
					t.Fatalf("Get(%q) = %q, %v, want ErrNotFound", absent, got, err)
				}
			}
			if got := fmt.Sprint(iterKeys(t, v, "m", "n")); got != "[m1=a m2=b]" {
				t.Fatalf("iterator after a commit = %s", got)
			}
			// An iterator outlives the view that made it, and Get after a
			// bounded iterator still reads the whole keyspace.
			it, err := v.NewIter([]byte("m2"), nil)
			if err != nil {
				t.Fatal(err)
			}
			if got, err := v.Get([]byte("ab"), nil); err != nil || string(got) != "1" {
				t.Fatalf("Get(ab) = %q, %v", got, err)
			}
			if err := v.Close(); err != nil {
				t.Fatal(err)
			}
			if !it.First() || string(it.Key()) != "m2" || it.Next() {
				t.Fatal("iterator after the view closed")
			}
			if err := it.Close(); err != nil {
				t.Fatal(err)
			}
			v = p.NewView()
			if got, err := v.Get([]byte("k"), nil); err != nil || string(got) != "v2" {
				t.Fatalf("new view Get = %q, %v", got, err)
			}
		})
	}
}

// TestViewFix checks that Fix fixes a view's state at once, and reports
// doing so only when the view was not fixed before.
func TestViewFix(t *testing.T) {
	p := openMem(t)
	commitKV(t, p, "k", "old")
	v := p.NewView()
	defer v.Close()
	commitKV(t, p, "k", "v1")
	if fixed, err := v.Fix(); !fixed || err != nil {
		t.Fatalf("first Fix = %v, %v; want true", fixed, err)
	}
	commitKV(t, p, "k", "v2")
	if got, err := v.Get([]byte("k"), nil); err != nil || string(got) != "v1" {
		t.Fatalf("Get after Fix = %q, %v; want the state at Fix", got, err)
	}
	if fixed, err := v.Fix(); fixed || err != nil {
		t.Fatalf("second Fix = %v, %v; want false", fixed, err)
	}
	read := p.NewView()
	defer read.Close()
	if _, err := read.Get([]byte("k"), nil); err != nil {
		t.Fatal(err)
	}
	if fixed, _ := read.Fix(); fixed {
		t.Fatal("Fix after a read reports fixing the view")
	}
	s := p.NewSnapshot()
	defer s.Close()
	if fixed, _ := s.Fix(); fixed {
		t.Fatal("Fix of a snapshot reports fixing it")
	}
}

// BenchmarkConsistentRead compares a snapshot with a view for what a list
// read does: one point read, then a 100-key scan, from one state.
func BenchmarkConsistentRead(b *testing.B) {
	p, err := OpenPebble(b.TempDir(), PebbleOptions{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = p.Close() })
	for i := range 20_000 {
		commitKV(b, p, fmt.Sprintf("item:%08d", i), "0123456789abcdef0123456789abcdef")
	}
	commitKV(b, p, "meta", "x")
	for _, c := range []struct {
		name string
		open func() Snapshot
	}{{"snapshot", p.NewSnapshot}, {"view", p.NewView}} {
		b.Run(c.name, func(b *testing.B) {
			var buf []byte
			b.ReportAllocs()
			for range b.N {
				r := c.open()
				var err error
				if buf, err = r.Get([]byte("meta"), buf); err != nil {
					b.Fatal(err)
				}
				it, err := r.NewIter([]byte("item:00005000"), []byte("item:00005100"))
				if err != nil {
					b.Fatal(err)
				}
				n := 0
				for ok := it.First(); ok; ok = it.Next() {
					n++
				}
				if err := it.Close(); err != nil || n != 100 {
					b.Fatalf("%d keys, %v", n, err)
				}
				if err := r.Close(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkConsistentGets compares a snapshot with a view for what MGET
// does: ten point reads from one state, half of them of absent keys.
func BenchmarkConsistentGets(b *testing.B) {
	p, err := OpenPebble(b.TempDir(), PebbleOptions{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = p.Close() })
	for i := range 20_000 {
		commitKV(b, p, fmt.Sprintf("key:%08d", i), "0123456789abcdef0123456789abcdef")
	}
	var keys [][]byte
	for i := range 10 {
		keys = append(keys, fmt.Appendf(nil, "key:%08d%s", i*1999, []string{"", "x"}[i%2]))
	}
	for _, c := range []struct {
		name string
		open func() Snapshot
	}{{"snapshot", p.NewSnapshot}, {"view", p.NewView}} {
		b.Run(c.name, func(b *testing.B) {
			var buf []byte
			b.ReportAllocs()
			for range b.N {
				r := c.open()
				for _, k := range keys {
					var err error
					if buf, err = r.Get(k, buf); err != nil && !errors.Is(err, ErrNotFound) {
						b.Fatal(err)
					}
				}
				if err := r.Close(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
