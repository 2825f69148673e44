package store

import (
	"testing"
)

// TestKnownAbsentMembers: a member deleted and added again over and over
// (HSET h f v; HDEL h f, SADD/SREM, ZADD/ZREM) is known absent after a
// committed deletion, so the add does not read the engine (issue 27, item
// 20: the read stepped over every deleted version of the record); a
// deletion rolled back, or never committed, is not taken as one, and the
// counts stay exact throughout (the test store's cleanup checks sizes).
func TestKnownAbsentMembers(t *testing.T) {
	s, _ := openTestStore(t)
	h, set, z := []byte("h"), []byte("s"), []byte("z")
	f, base := []byte("f"), []byte("base")
	keys := []string{"h", "s", "z"}
	writeTx(t, s, keys, func(tx *Tx) (int64, error) {
		if _, err := tx.SAdd(0, set, [][]byte{base}); err != nil {
			return 0, err
		}
		if _, err := tx.ZAdd(0, z, ZAddArgs{}, []ZMember{{Member: base, Score: 0}}); err != nil {
			return 0, err
		}
		return tx.HSet(0, h, [][]byte{base, []byte("1")})
	})
	add := func(tx *Tx) (int64, error) {
		n, err := tx.HSet(0, h, [][]byte{f, []byte("v")})
		if err != nil {
			return 0, err
		}
		m, err := tx.SAdd(0, set, [][]byte{f})
		if err != nil {
			return 0, err
		}
		r, err := tx.ZAdd(0, z, ZAddArgs{}, []ZMember{{Member: f, Score: 1}})
		return n + m + r.Added, err
	}
	del := func(tx *Tx) (int64, error) {
		n, err := tx.HDel(0, h, [][]byte{f})
		if err != nil {
			return 0, err
		}
		m, err := tx.SRem(0, set, [][]byte{f})
		if err != nil {
			return 0, err
		}
		r, err := tx.ZRem(0, z, [][]byte{f})
		return n + m + r, err
	}
	sizes := func() [3]int64 {
		return readTx(t, s, func(tx *Tx) ([3]int64, error) {
			a, err := tx.HLen(0, h)
			if err != nil {
				return [3]int64{}, err
			}
			b, err := tx.SCard(0, set)
			if err != nil {
				return [3]int64{}, err
			}
			c, err := tx.ZCard(0, z)
			return [3]int64{a, b, c}, err
		})
	}
	for i := range 50 {
		before := s.stats.FilteredReads.Load()
		if n := writeTx(t, s, keys, add); n != 3 {
			t.Fatalf("round %d: %d added, want 3", i, n)
		}
		if i > 0 && s.stats.FilteredReads.Load()-before < 3 {
			t.Fatalf("round %d: the adds read the engine for members deleted by the last commit", i)
		}
		if got := sizes(); got != [3]int64{2, 2, 2} {
			t.Fatalf("round %d: sizes %v after the adds", i, got)
		}
		if n := writeTx(t, s, keys, del); n != 3 {
			t.Fatalf("round %d: %d removed, want 3", i, n)
		}
	}

	// A deletion rolled back with its command is not known absent.
	writeTx(t, s, keys, add)
	tx := s.Begin(byteSlices(keys...))
	mark := tx.StartCommand()
	if n, err := del(tx); err != nil || n != 3 {
		t.Fatalf("del: %d, %v", n, err)
	}
	if err := tx.RollbackCommand(mark); err != nil {
		t.Fatal(err)
	}
	tx.StartCommand()
	if n, err := add(tx); err != nil || n != 0 {
		t.Fatalf("adds after a rolled-back deletion, same Tx: %d new, %v; want 0", n, err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	tx.Close()
	if n := writeTx(t, s, keys, add); n != 0 {
		t.Fatalf("adds after a rolled-back deletion: %d new, want 0", n)
	}

	// A deletion never committed is not known absent either.
	tx = s.Begin(byteSlices(keys...))
	if n, err := del(tx); err != nil || n != 3 {
		t.Fatalf("del: %d, %v", n, err)
	}
	tx.Close()
	if n := writeTx(t, s, keys, add); n != 0 {
		t.Fatalf("adds after an abandoned deletion: %d new, want 0", n)
	}

	// Deleted and added again in one Tx: present at commit.
	writeTx(t, s, keys, func(tx *Tx) (int64, error) {
		if _, err := del(tx); err != nil {
			return 0, err
		}
		return add(tx)
	})
	if n := writeTx(t, s, keys, add); n != 0 {
		t.Fatalf("adds after a deletion undone in its Tx: %d new, want 0", n)
	}
	if got := sizes(); got != [3]int64{2, 2, 2} {
		t.Fatalf("sizes %v at the end", got)
	}
}

// BenchmarkMemberChurn deletes and adds one member of a collection that
// keeps another, over and over (issue 27, item 20): each op is one add and
// one delete, each its own commit, as two clients' commands would be.
func BenchmarkMemberChurn(b *testing.B) {
	f, base := []byte("f"), []byte("base")
	for _, tc := range []struct {
		name     string
		setup    func(tx *Tx) error
		add, del func(tx *Tx) error
	}{
		{"hash", func(tx *Tx) error { _, err := tx.HSet(0, []byte("k"), [][]byte{base, f}); return err },
			func(tx *Tx) error { _, err := tx.HSet(0, []byte("k"), [][]byte{f, f}); return err },
			func(tx *Tx) error { _, err := tx.HDel(0, []byte("k"), [][]byte{f}); return err }},
		{"set", func(tx *Tx) error { _, err := tx.SAdd(0, []byte("k"), [][]byte{base}); return err },
			func(tx *Tx) error { _, err := tx.SAdd(0, []byte("k"), [][]byte{f}); return err },
			func(tx *Tx) error { _, err := tx.SRem(0, []byte("k"), [][]byte{f}); return err }},
		{"zset", func(tx *Tx) error {
			_, err := tx.ZAdd(0, []byte("k"), ZAddArgs{}, []ZMember{{Member: base, Score: 0}})
			return err
		},
			func(tx *Tx) error {
				_, err := tx.ZAdd(0, []byte("k"), ZAddArgs{}, []ZMember{{Member: f, Score: 1}})
				return err
			},
			func(tx *Tx) error { _, err := tx.ZRem(0, []byte("k"), [][]byte{f}); return err }},
	} {
		b.Run(tc.name, func(b *testing.B) {
			s := openBenchStore(b, 0, nil)
			keys := [][]byte{[]byte("k")}
			if err := commit(s, keys, tc.setup); err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if err := commit(s, keys, tc.add); err != nil {
					b.Fatal(err)
				}
				if err := commit(s, keys, tc.del); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
