package store

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cairndb/cairn/internal/encoding"
	"github.com/cairndb/cairn/internal/glob"
)

func setSorted(bs [][]byte) []string {
	out := stringsOf(bs)
	slices.Sort(out)
	return out
}

// setAddAll adds members to key in one command.
func setAddAll(t testing.TB, s *Store, key string, members []string) {
	t.Helper()
	writeTx(t, s, []string{key}, func(tx *Tx) (int64, error) { return tx.SAdd(0, []byte(key), byteSlices(members...)) })
}

// setMembersOf returns SMEMBERS of key, sorted (they come sorted anyway).
func setMembersOf(t testing.TB, s *Store, key string) []string {
	t.Helper()
	var out []string
	readTx(t, s, func(tx *Tx) (struct{}, error) {
		n := int64(-1)
		err := tx.SMembers(0, []byte(key), func(size int64) { n = size }, func(m []byte) { out = append(out, string(m)) })
		if err == nil && int(n) != len(out) {
			err = fmt.Errorf("SMEMBERS announced %d, sent %d", n, len(out))
		}
		return struct{}{}, err
	})
	return out
}

func TestSetAddRemMembers(t *testing.T) {
	s, _ := openTestStore(t)
	tests := []struct {
		name    string
		op      func(tx *Tx) (int64, error)
		want    int64
		members []string
	}{
		{"sadd creates", func(tx *Tx) (int64, error) { return tx.SAdd(0, []byte("s"), byteSlices("b", "a", "c")) }, 3, []string{"a", "b", "c"}},
		{"sadd counts only new", func(tx *Tx) (int64, error) { return tx.SAdd(0, []byte("s"), byteSlices("a", "d")) }, 1, []string{"a", "b", "c", "d"}},
		{"sadd repeats in one call", func(tx *Tx) (int64, error) { return tx.SAdd(0, []byte("s"), byteSlices("e", "e", "a")) }, 1, []string{"a", "b", "c", "d", "e"}},
		{"sadd empty and binary", func(tx *Tx) (int64, error) { return tx.SAdd(0, []byte("s"), byteSlices("", "\x00\xff")) }, 2, []string{"", "\x00\xff", "a", "b", "c", "d", "e"}},
		{"srem counts present", func(tx *Tx) (int64, error) { return tx.SRem(0, []byte("s"), byteSlices("a", "zz", "a")) }, 1, []string{"", "\x00\xff", "b", "c", "d", "e"}},
		{"srem absent key", func(tx *Tx) (int64, error) { return tx.SRem(0, []byte("nokey"), byteSlices("a")) }, 0, []string{"", "\x00\xff", "b", "c", "d", "e"}},
		{"srem everything deletes", func(tx *Tx) (int64, error) {
			return tx.SRem(0, []byte("s"), byteSlices("", "\x00\xff", "b", "c", "d", "e"))
		}, 6, nil},
		{"sadd on fresh repeats", func(tx *Tx) (int64, error) { return tx.SAdd(0, []byte("s"), byteSlices("x", "x", "y", "x")) }, 2, []string{"x", "y"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := writeTx(t, s, []string{"s", "nokey"}, tt.op)
			if got != tt.want {
				t.Fatalf("got %d, want %d", got, tt.want)
			}
			if m := setMembersOf(t, s, "s"); !slices.Equal(m, tt.members) {
				t.Fatalf("members %q, want %q", m, tt.members)
			}
			card := readTx(t, s, func(tx *Tx) (int64, error) { return tx.SCard(0, []byte("s")) })
			if card != int64(len(tt.members)) {
				t.Fatalf("SCARD %d, want %d", card, len(tt.members))
			}
			exists := readTx(t, s, func(tx *Tx) (bool, error) { return tx.Exists(0, []byte("s")) })
			if exists != (len(tt.members) > 0) {
				t.Fatalf("EXISTS %v with %d members", exists, len(tt.members))
			}
		})
	}
}

func TestSetIsMember(t *testing.T) {
	s, _ := openTestStore(t)
	setAddAll(t, s, "s", []string{"a", "", "b"})
	for _, tt := range []struct {
		key, member string
		want        bool
	}{
		{"s", "a", true}, {"s", "", true}, {"s", "c", false}, {"nokey", "a", false},
	} {
		got := readTx(t, s, func(tx *Tx) (bool, error) { return tx.SIsMember(0, []byte(tt.key), []byte(tt.member)) })
		if got != tt.want {
			t.Errorf("SISMEMBER %s %q = %v", tt.key, tt.member, got)
		}
	}
	got := readTx(t, s, func(tx *Tx) ([]bool, error) { return tx.SMIsMember(0, []byte("s"), byteSlices("a", "c", "", "a")) })
	if !slices.Equal(got, []bool{true, false, true, true}) {
		t.Errorf("SMISMEMBER = %v", got)
	}
	got = readTx(t, s, func(tx *Tx) ([]bool, error) { return tx.SMIsMember(0, []byte("nokey"), byteSlices("a", "b")) })
	if !slices.Equal(got, []bool{false, false}) {
		t.Errorf("SMISMEMBER on absent key = %v", got)
	}
}

func TestSetWrongType(t *testing.T) {
	s, _ := openTestStore(t)
	set(t, s, 0, "str", "x", SetArgs{})
	writeTx(t, s, []string{"h"}, func(tx *Tx) (int64, error) { return tx.HSet(0, []byte("h"), byteSlices("f", "v")) })
	setAddAll(t, s, "s", []string{"a"})
	ops := map[string]func(tx *Tx, k []byte) error{
		"SAdd":        func(tx *Tx, k []byte) error { _, err := tx.SAdd(0, k, byteSlices("a")); return err },
		"SRem":        func(tx *Tx, k []byte) error { _, err := tx.SRem(0, k, byteSlices("a")); return err },
		"SIsMember":   func(tx *Tx, k []byte) error { _, err := tx.SIsMember(0, k, []byte("a")); return err },
		"SMIsMember":  func(tx *Tx, k []byte) error { _, err := tx.SMIsMember(0, k, byteSlices("a")); return err },
		"SCard":       func(tx *Tx, k []byte) error { _, err := tx.SCard(0, k); return err },
		"SMembers":    func(tx *Tx, k []byte) error { return tx.SMembers(0, k, func(int64) {}, func([]byte) {}) },
		"SPop":        func(tx *Tx, k []byte) error { _, _, err := tx.SPop(0, k); return err },
		"SPopCount":   func(tx *Tx, k []byte) error { _, err := tx.SPopCount(0, k, 2); return err },
		"SRandMember": func(tx *Tx, k []byte) error { _, _, err := tx.SRandMember(0, k); return err },
		"SRandMembers": func(tx *Tx, k []byte) error {
			return tx.SRandMembers(0, k, 2, false, func(uint64) {}, func([]byte) bool { return true })
		},
		"SMove src":   func(tx *Tx, k []byte) error { _, err := tx.SMove(0, k, []byte("s"), []byte("a")); return err },
		"SMove dst":   func(tx *Tx, k []byte) error { _, err := tx.SMove(0, []byte("s"), k, []byte("a")); return err },
		"SInter":      func(tx *Tx, k []byte) error { _, err := tx.SInter(0, [][]byte{[]byte("nokey"), k}); return err },
		"SInterCard":  func(tx *Tx, k []byte) error { _, err := tx.SInterCard(0, [][]byte{[]byte("s"), k}, 0); return err },
		"SUnion":      func(tx *Tx, k []byte) error { _, err := tx.SUnion(0, [][]byte{[]byte("s"), k}); return err },
		"SDiff":       func(tx *Tx, k []byte) error { _, err := tx.SDiff(0, [][]byte{[]byte("nokey"), k}); return err },
		"SInterStore": func(tx *Tx, k []byte) error { _, err := tx.SInterStore(0, []byte("d"), [][]byte{k}); return err },
		"SUnionStore": func(tx *Tx, k []byte) error {
			_, err := tx.SUnionStore(0, []byte("d"), [][]byte{[]byte("s"), k})
			return err
		},
		"SDiffStore": func(tx *Tx, k []byte) error {
			_, err := tx.SDiffStore(0, []byte("d"), [][]byte{[]byte("s"), k})
			return err
		},
		"SScan":       func(tx *Tx, k []byte) error { _, _, err := tx.SScan(0, k, 0, SScanArgs{Count: 10}); return err },
		"SetEncoding": func(tx *Tx, k []byte) error { _, _, err := tx.SetEncoding(0, k); return err },
	}
	for _, wrong := range []string{"str", "h"} {
		for name, op := range ops {
			t.Run(name+" on "+wrong, func(t *testing.T) {
				tx := s.Begin(byteSlices(wrong, "s", "d", "nokey"))
				defer tx.Close()
				if err := op(tx, []byte(wrong)); !errors.Is(err, ErrWrongType) {
					t.Fatalf("err = %v, want WRONGTYPE", err)
				}
			})
		}
	}
	if m := setMembersOf(t, s, "s"); !slices.Equal(m, []string{"a"}) {
		t.Fatalf("a failed command changed the set: %q", m)
	}
}

func TestSetMove(t *testing.T) {
	tests := []struct {
		name          string
		src, dst, m   string
		want          bool
		wantSrc, wDst []string
	}{
		{"moves", "a", "b", "x", true, []string{"y"}, []string{"x", "z"}},
		{"member absent", "a", "b", "q", false, []string{"x", "y"}, []string{"z"}},
		{"already in dst", "a", "b", "z2", true, []string{"x", "y"}, []string{"z", "z2"}},
		{"src absent", "nokey", "b", "x", false, []string{"x", "y"}, []string{"z"}},
		{"to a new key", "a", "new", "x", true, []string{"y"}, []string{"z"}},
		{"same key member", "a", "a", "x", true, []string{"x", "y"}, []string{"z"}},
		{"same key absent member", "a", "a", "q", false, []string{"x", "y"}, []string{"z"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := openTestStore(t)
			setAddAll(t, s, "a", []string{"x", "y"})
			setAddAll(t, s, "b", []string{"z"})
			if tt.name == "already in dst" {
				setAddAll(t, s, "a", []string{"z2"})
				setAddAll(t, s, "b", []string{"z2"})
			}
			got := writeTx(t, s, []string{tt.src, tt.dst}, func(tx *Tx) (bool, error) {
				return tx.SMove(0, []byte(tt.src), []byte(tt.dst), []byte(tt.m))
			})
			if got != tt.want {
				t.Fatalf("SMOVE = %v", got)
			}
			if m := setMembersOf(t, s, "a"); !slices.Equal(m, tt.wantSrc) {
				t.Errorf("a = %q, want %q", m, tt.wantSrc)
			}
			if m := setMembersOf(t, s, "b"); !slices.Equal(m, tt.wDst) {
				t.Errorf("b = %q, want %q", m, tt.wDst)
			}
			if tt.dst == "new" {
				if m := setMembersOf(t, s, "new"); !slices.Equal(m, []string{"x"}) {
					t.Errorf("new = %q", m)
				}
			}
		})
	}
	t.Run("last member deletes src", func(t *testing.T) {
		s, _ := openTestStore(t)
		setAddAll(t, s, "a", []string{"x"})
		writeTx(t, s, []string{"a", "b"}, func(tx *Tx) (bool, error) { return tx.SMove(0, []byte("a"), []byte("b"), []byte("x")) })
		if ok := readTx(t, s, func(tx *Tx) (bool, error) { return tx.Exists(0, []byte("a")) }); ok {
			t.Fatal("emptied source still exists")
		}
	})
	t.Run("absent src with wrong-type dst", func(t *testing.T) {
		s, _ := openTestStore(t)
		set(t, s, 0, "str", "v", SetArgs{})
		got := writeTx(t, s, []string{"nokey", "str"}, func(tx *Tx) (bool, error) {
			return tx.SMove(0, []byte("nokey"), []byte("str"), []byte("x"))
		})
		if got {
			t.Fatal("moved from an absent set")
		}
	})
}

// setModel is a reference implementation of the set algebra.
func setModelOp(op setOp, sets []map[string]bool) []string {
	var out []string
	switch op {
	case setOpInter:
		for m := range sets[0] {
			in := true
			for _, o := range sets[1:] {
				in = in && o[m]
			}
			if in {
				out = append(out, m)
			}
		}
	case setOpUnion:
		all := map[string]bool{}
		for _, s := range sets {
			maps.Copy(all, s)
		}
		out = slices.Collect(maps.Keys(all))
	case setOpDiff:
		for m := range sets[0] {
			in := false
			for _, o := range sets[1:] {
				in = in || o[m]
			}
			if !in {
				out = append(out, m)
			}
		}
	}
	slices.Sort(out)
	return out
}

// TestSetAlgebraModel checks SINTER/SUNION/SDIFF, SINTERCARD and the
// *STORE commands against a model over random sets, repeated and absent
// keys included.
func TestSetAlgebraModel(t *testing.T) {
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(uint64(seed), 0))
	s, _ := openTestStore(t)
	names := []string{"k0", "k1", "k2", "k3", "absent"}
	model := map[string]map[string]bool{}
	for _, k := range names[:4] {
		model[k] = map[string]bool{}
		n := rng.IntN(40)
		if k == "k3" {
			n = 600 // big enough to take other paths
		}
		var ms []string
		for range n {
			m := fmt.Sprintf("m%d", rng.IntN(60+n))
			ms = append(ms, m)
			model[k][m] = true
		}
		if len(ms) > 0 {
			setAddAll(t, s, k, ms)
		}
	}
	ops := []struct {
		op    setOp
		name  string
		read  func(tx *Tx, db int, keys [][]byte) ([][]byte, error)
		store func(tx *Tx, db int, dst []byte, keys [][]byte) (int64, error)
	}{
		{setOpInter, "inter", (*Tx).SInter, (*Tx).SInterStore},
		{setOpUnion, "union", (*Tx).SUnion, (*Tx).SUnionStore},
		{setOpDiff, "diff", (*Tx).SDiff, (*Tx).SDiffStore},
	}
	for round := range 200 {
		nk := 1 + rng.IntN(4)
		keys := make([]string, nk)
		sets := make([]map[string]bool, nk)
		for i := range keys {
			keys[i] = names[rng.IntN(len(names))]
			sets[i] = model[keys[i]]
			if sets[i] == nil {
				sets[i] = map[string]bool{}
			}
		}
		o := ops[rng.IntN(len(ops))]
		want := setModelOp(o.op, sets)
		got := readTx(t, s, func(tx *Tx) ([][]byte, error) { return o.read(tx, 0, byteSlices(keys...)) })
		if g := setSorted(got); !slices.Equal(g, want) && !(len(g) == 0 && len(want) == 0) {
			t.Fatalf("round %d: S%s %v = %q, want %q", round, o.name, keys, g, want)
		}
		if o.op == setOpInter {
			limit := int64(rng.IntN(5))
			n := readTx(t, s, func(tx *Tx) (int64, error) { return tx.SInterCard(0, byteSlices(keys...), limit) })
			w := int64(len(want))
			if limit > 0 {
				w = min(w, limit)
			}
			if n != w {
				t.Fatalf("round %d: SINTERCARD %v LIMIT %d = %d, want %d", round, keys, limit, n, w)
			}
		}
		// Store into one of the keys now and then, which must still read
		// the sources as they were.
		dst := "dst"
		if rng.IntN(3) == 0 {
			dst = keys[rng.IntN(nk)]
		}
		if dst == "absent" {
			dst = "dst"
		}
		n := writeTx(t, s, append([]string{dst}, keys...), func(tx *Tx) (int64, error) {
			return o.store(tx, 0, []byte(dst), byteSlices(keys...))
		})
		if n != int64(len(want)) {
			t.Fatalf("round %d: S%sSTORE %s %v = %d, want %d", round, o.name, dst, keys, n, len(want))
		}
		if m := setMembersOf(t, s, dst); !slices.Equal(m, want) && !(len(m) == 0 && len(want) == 0) {
			t.Fatalf("round %d: %s after S%sSTORE = %q, want %q", round, dst, o.name, m, want)
		}
		nm := map[string]bool{}
		for _, m := range want {
			nm[m] = true
		}
		if dst == "dst" {
			continue
		}
		model[dst] = nm
	}
}

func TestSetStoreReplacesDestination(t *testing.T) {
	s, clock := openTestStore(t)
	setAddAll(t, s, "a", []string{"x", "y"})
	set(t, s, 0, "str", "v", SetArgs{ExpireMs: clock.ms.Load() + 60_000})
	n := writeTx(t, s, []string{"str", "a"}, func(tx *Tx) (int64, error) { return tx.SUnionStore(0, []byte("str"), byteSlices("a")) })
	if n != 2 {
		t.Fatalf("SUNIONSTORE = %d", n)
	}
	info := readTx(t, s, func(tx *Tx) (KeyInfo, error) {
		i, _, err := tx.Lookup(0, []byte("str"))
		return i, err
	})
	if info.Type != encoding.TypeSet {
		t.Fatalf("type %v", info.Type)
	}
	if d := readTx(t, s, func(tx *Tx) (int64, error) { return tx.Deadline(0, []byte("str")) }); d != -1 {
		t.Fatalf("deadline %d kept over a *STORE", d)
	}
	// An empty result deletes the destination.
	n = writeTx(t, s, []string{"str", "a", "nokey"}, func(tx *Tx) (int64, error) {
		return tx.SInterStore(0, []byte("str"), byteSlices("a", "nokey"))
	})
	if ok := readTx(t, s, func(tx *Tx) (bool, error) { return tx.Exists(0, []byte("str")) }); n != 0 || ok {
		t.Fatalf("empty SINTERSTORE = %d, dst exists %v", n, ok)
	}
}

// setBig fills key with n members named by name(i), in batches.
func setBig(tb testing.TB, s *Store, key string, n int, name func(i int) string) {
	tb.Helper()
	const batch = 10000
	for lo := 0; lo < n; lo += batch {
		ms := make([][]byte, 0, batch)
		for i := lo; i < min(n, lo+batch); i++ {
			ms = append(ms, []byte(name(i)))
		}
		writeTx(tb, s, []string{key}, func(tx *Tx) (int64, error) { return tx.SAdd(0, []byte(key), ms) })
	}
}

func TestSetPopCountPaths(t *testing.T) {
	tests := []struct {
		name  string
		n     int
		count int64
	}{
		{"small set", 50, 7},
		{"small set, most of it", 50, 45},
		{"whole small set", 50, 50},
		{"more than the set", 50, 80},
		{"big set, sampled", 2000, 100},
		{"big set, few remain", 2000, 1800},
		{"big set, whole", 600, 600},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := openTestStore(t)
			setBig(t, s, "s", tt.n, func(i int) string { return fmt.Sprintf("m%06d", i) })
			popped := writeTx(t, s, []string{"s"}, func(tx *Tx) ([][]byte, error) { return tx.SPopCount(0, []byte("s"), tt.count) })
			want := min(int(tt.count), tt.n)
			if len(popped) != want {
				t.Fatalf("popped %d, want %d", len(popped), want)
			}
			seen := map[string]bool{}
			for _, m := range popped {
				if seen[string(m)] {
					t.Fatalf("%q popped twice", m)
				}
				seen[string(m)] = true
			}
			left := setMembersOf(t, s, "s")
			if len(left) != tt.n-want {
				t.Fatalf("%d left, want %d", len(left), tt.n-want)
			}
			for _, m := range left {
				if seen[m] {
					t.Fatalf("%q popped but still there", m)
				}
			}
		})
	}
}

func TestSetPopAndRandMemberSingle(t *testing.T) {
	for _, n := range []int{1, 3, 700} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			s, _ := openTestStore(t)
			setBig(t, s, "s", n, func(i int) string { return fmt.Sprint(i) })
			m, ok := setR2(t, s, func(tx *Tx) ([]byte, bool, error) { return tx.SRandMember(0, []byte("s")) })
			if !ok || !readTx(t, s, func(tx *Tx) (bool, error) { return tx.SIsMember(0, []byte("s"), m) }) {
				t.Fatalf("SRANDMEMBER = %q, %v: not a member", m, ok)
			}
			for i := range n {
				m, ok := setW2(t, s, func(tx *Tx) ([]byte, bool, error) { return tx.SPop(0, []byte("s")) })
				if !ok {
					t.Fatalf("pop %d found nothing", i)
				}
				if readTx(t, s, func(tx *Tx) (bool, error) { return tx.SIsMember(0, []byte("s"), m) }) {
					t.Fatalf("%q still a member after SPOP", m)
				}
			}
			if _, ok := setW2(t, s, func(tx *Tx) ([]byte, bool, error) { return tx.SPop(0, []byte("s")) }); ok {
				t.Fatal("SPOP on an emptied set found a member")
			}
			if _, ok := setR2(t, s, func(tx *Tx) ([]byte, bool, error) { return tx.SRandMember(0, []byte("s")) }); ok {
				t.Fatal("SRANDMEMBER on an absent set found a member")
			}
		})
	}
}

// TestSetPopSmallUniform checks that SPOP on a small set, which takes its
// members from a shuffled batch of the whole set, draws each member evenly:
// every trial pops one member and adds it back, which drops the batch.
func TestSetPopSmallUniform(t *testing.T) {
	s, _ := openTestStore(t)
	const n, trials = 5, 5000
	setBig(t, s, "s", n, func(i int) string { return fmt.Sprint(i) })
	counts := map[string]int{}
	for range trials {
		m, ok := setW2(t, s, func(tx *Tx) ([]byte, bool, error) { return tx.SPop(0, []byte("s")) })
		if !ok {
			t.Fatal("SPOP found nothing")
		}
		counts[string(m)]++
		writeTx(t, s, []string{"s"}, func(tx *Tx) (int64, error) { return tx.SAdd(0, []byte("s"), [][]byte{m}) })
	}
	want := float64(trials) / n
	chi := 0.0
	for i := range n {
		c := float64(counts[fmt.Sprint(i)])
		chi += (c - want) * (c - want) / want
	}
	// 4 degrees of freedom: above 18.5 happens by chance once in 1,000.
	if chi > 18.5 {
		t.Errorf("chi-square %.1f over %d pops: counts %v", chi, trials, counts)
	}
}

func setR2(t testing.TB, s *Store, fn func(tx *Tx) ([]byte, bool, error)) ([]byte, bool) {
	t.Helper()
	var ok bool
	m := readTx(t, s, func(tx *Tx) ([]byte, error) {
		m, found, err := fn(tx)
		ok = found
		return m, err
	})
	return m, ok
}

func setW2(t testing.TB, s *Store, fn func(tx *Tx) ([]byte, bool, error)) ([]byte, bool) {
	t.Helper()
	var ok bool
	m := writeTx(t, s, []string{"s"}, func(tx *Tx) ([]byte, error) {
		m, found, err := fn(tx)
		ok = found
		return m, err
	})
	return m, ok
}

// setRand runs SRANDMEMBER with a count and returns the announced size and
// the members.
func setRand(t testing.TB, s *Store, key string, count uint64, distinct bool) (uint64, []string) {
	t.Helper()
	var n uint64
	var out []string
	readTx(t, s, func(tx *Tx) (struct{}, error) {
		return struct{}{}, tx.SRandMembers(0, []byte(key), count, distinct, func(k uint64) { n = k }, func(m []byte) bool {
			out = append(out, string(m))
			return true
		})
	})
	if uint64(len(out)) != n {
		t.Fatalf("announced %d members, sent %d", n, len(out))
	}
	return n, out
}

func TestSetRandMembers(t *testing.T) {
	tests := []struct {
		name     string
		n        int
		count    uint64
		distinct bool
		want     int
	}{
		{"absent", 0, 5, true, 0},
		{"zero", 10, 0, true, 0},
		{"distinct, small", 10, 4, true, 4},
		{"distinct, all", 10, 10, true, 10},
		{"distinct, more than all", 10, 1 << 62, true, 10},
		{"repeats, small", 10, 50, false, 50},
		{"distinct, big, sampled", 3000, 20, true, 20},
		{"distinct, big, read whole", 3000, 1500, true, 1500},
		{"repeats, big, sampled", 3000, 30, false, 30},
		{"repeats, big, read whole", 3000, 600, false, 600},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := openTestStore(t)
			if tt.n > 0 {
				setBig(t, s, "s", tt.n, func(i int) string { return fmt.Sprint(i) })
			}
			n, got := setRand(t, s, "s", tt.count, tt.distinct)
			if int(n) != tt.want {
				t.Fatalf("size %d, want %d", n, tt.want)
			}
			seen := map[string]bool{}
			for _, m := range got {
				var i int
				if _, err := fmt.Sscan(m, &i); err != nil || i < 0 || i >= tt.n {
					t.Fatalf("%q is not a member", m)
				}
				if tt.distinct && seen[m] {
					t.Fatalf("%q drawn twice", m)
				}
				seen[m] = true
			}
		})
	}
	for _, distinct := range []bool{false, true} {
		t.Run(fmt.Sprintf("stops when asked, distinct %v", distinct), func(t *testing.T) {
			s, _ := openTestStore(t)
			setBig(t, s, "s", 3000, func(i int) string { return fmt.Sprint(i) })
			calls := 0
			readTx(t, s, func(tx *Tx) (struct{}, error) {
				return struct{}{}, tx.SRandMembers(0, []byte("s"), math.MaxInt64, distinct, func(uint64) {}, func([]byte) bool {
					calls++
					return calls < 100
				})
			})
			if calls != 100 {
				t.Fatalf("%d calls after asking to stop at 100", calls)
			}
		})
	}
}

// Small sets are drawn from exactly: check that every member comes up
// about equally often.
func TestSetRandMemberSmallIsUniform(t *testing.T) {
	s, _ := openTestStore(t)
	setAddAll(t, s, "s", []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j"})
	counts := map[string]int{}
	const draws = 20000
	_, got := setRand(t, s, "s", draws, false)
	for _, m := range got {
		counts[m]++
	}
	for m, c := range counts {
		// Expected 2000, sd about 42: 10 sd either way never happens.
		if c < 1580 || c > 2420 {
			t.Errorf("%q drawn %d times of %d", m, c, draws)
		}
	}
	if len(counts) != 10 {
		t.Fatalf("drew %d distinct members", len(counts))
	}
}

// setShapes are the member shapes the sampler is measured on.
var setShapes = []struct {
	name string
	n    int
	fn   func(i int) string
	// maxChi bounds the chi-square statistic per degree of freedom of the
	// draw counts (1 for a fair draw).
	maxChi float64
	// perMember is the number of draws per member: chi-square has the
	// same spread (sd 0.045 here) for a fair draw whatever it is, while
	// an unfair one stands out more with more draws.
	perMember int
}{
	{"random hex", 1000, func(i int) string {
		r := rand.New(rand.NewPCG(uint64(i), 7))
		return fmt.Sprintf("%016x%016x", r.Uint64(), r.Uint64())
	}, 1.3, 30},
	{"decimal ids", 1000, func(i int) string { return fmt.Sprint(i + 1) }, 1.3, 30},
	{"prefixed ids", 1000, func(i int) string { return fmt.Sprintf("user:%d", i*7+3) }, 1.3, 30},
	{"zero-padded ids", 1000, func(i int) string { return fmt.Sprintf("item:%08d", i) }, 1.3, 30},
	{"binary", 1000, func(i int) string {
		r := rand.New(rand.NewPCG(uint64(i), 9))
		var b [12]byte
		for j := range b {
			b[j] = byte(r.Uint32())
		}
		return string(b[:])
	}, 1.3, 30},
	{"one cluster and one outlier", 1000, func(i int) string {
		if i == 0 {
			return "zzz"
		}
		return fmt.Sprintf("a%d", i)
	}, 1.3, 30},
	{"clusters sharing 40 bytes", 1000, func(i int) string {
		return fmt.Sprintf("%c%s%06d", 'a'+i%4, strings.Repeat("x", 40), i)
	}, 1.3, 30},
	{"timestamps", 1000, func(i int) string {
		return fmt.Sprintf("2024-06-01T12:%02d:%02d.%03dZ|ev%d", i/600%60, i/10%60, i%10*37, i)
	}, 1.3, 30},
	// Numbers of 1 to 5 digits before a fixed suffix: the members with 5
	// digits are ten times denser than the rest, and drawn up to about 2x
	// less often than average.
	{"ids inside urls", 1000, func(i int) string {
		return fmt.Sprintf("https://example.com/users/%d/profile", i*13)
	}, 15, 10},
}

var setDrawsPerMember = flag.Int("set-draws", 0, "draws per member in TestSetSamplerFairness (0: 30, 10 for the slow shape or under -short)")

// TestSetSamplerFairness measures how evenly the sampler of big sets draws
// (the figures quoted in set.go come from this test with -v -set-draws=100).
func TestSetSamplerFairness(t *testing.T) {
	for _, sh := range setShapes {
		t.Run(sh.name, func(t *testing.T) {
			per := sh.perMember
			if testing.Short() {
				per = 10
			}
			if *setDrawsPerMember > 0 {
				per = *setDrawsPerMember
			}
			draws := per * sh.n
			s, _ := openTestStore(t)
			setBig(t, s, "s", sh.n, sh.fn)
			counts := setSampleCounts(t, s, "s", draws)
			lo, hi := math.MaxInt, 0
			for _, c := range counts {
				lo, hi = min(lo, c), max(hi, c)
			}
			if len(counts) < sh.n {
				lo = 0
			}
			// Pearson's chi-square over the members, per degree of
			// freedom: about 1 (sd 0.045 here) for a fair draw.
			want := float64(draws) / float64(sh.n)
			chi := float64(sh.n-len(counts)) * want
			for _, c := range counts {
				chi += (float64(c) - want) * (float64(c) - want) / want
			}
			chi /= float64(sh.n - 1)
			t.Logf("%s: %d members, %d draws: least %d, most %d, chi-square/df %.2f", sh.name, sh.n, draws, lo, hi, chi)
			if chi > sh.maxChi {
				t.Errorf("chi-square/df %.2f (least %d, most %d) over %.2f", chi, lo, hi, sh.maxChi)
			}
		})
	}
}

// setSampleCounts draws one member at a time from a sampler over key.
func setSampleCounts(t testing.TB, s *Store, key string, draws int) map[string]int {
	t.Helper()
	counts := map[string]int{}
	tx := s.Read(true)
	defer tx.Close()
	c, err := tx.openSet(0, []byte(key))
	if err != nil {
		t.Fatal(err)
	}
	sm, err := tx.newSetSampler(c)
	if err != nil {
		t.Fatal(err)
	}
	defer sm.close()
	for range draws {
		m, err := sm.draw()
		if err != nil {
			t.Fatal(err)
		}
		counts[string(m)]++
	}
	return counts
}

// TestSetSamplerOrder checks the property the sampler stands on: its
// numbers never decrease along the member order, and a number's seek key
// lands at or before the first member that reaches it.
func TestSetSamplerOrder(t *testing.T) {
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(uint64(seed), 1))
	alphabets := []string{"0123456789", "abcdef0123456789", "ab", "\x00\x01\xff", "az09:-_ "}
	for _, alpha := range alphabets {
		t.Run(fmt.Sprintf("%q", alpha), func(t *testing.T) {
			s, _ := openTestStore(t)
			seen := map[string]bool{}
			var ms []string
			for len(ms) < 800 {
				n := rng.IntN(12)
				b := make([]byte, n)
				for i := range b {
					b[i] = alpha[rng.IntN(len(alpha))]
				}
				if !seen[string(b)] {
					seen[string(b)] = true
					ms = append(ms, string(b))
				}
			}
			// Some members outside the alphabet the sampler will learn.
			ms = append(ms, "\x7f\x7f", "m\x00x", "0~")
			setAddAll(t, s, "s", ms)
			slices.Sort(ms)
			tx := s.Read(true)
			defer tx.Close()
			c, err := tx.openSet(0, []byte("s"))
			if err != nil {
				t.Fatal(err)
			}
			sm, err := tx.newSetSampler(c)
			if err != nil {
				t.Fatal(err)
			}
			defer sm.close()
			prefix := c.Prefix(encoding.FamilySub)
			key := func(m string) []byte { return append(bytes.Clone(prefix), m...) }
			for i := 1; i < len(ms); i++ {
				if sm.pos(key(ms[i-1])).cmp(sm.pos(key(ms[i]))) > 0 {
					t.Fatalf("pos(%q) > pos(%q)", ms[i-1], ms[i])
				}
			}
			span := sm.hi.sub(sm.lo).add(setPos{0, 1})
			for range 2000 {
				x := sm.lo.add(setRandBelow(span))
				k := bytes.Clone(sm.seekKey(x))
				// Every member before the seek key has a smaller number.
				i, _ := slices.BinarySearch(ms, string(k[len(prefix):]))
				if i > 0 && sm.pos(key(ms[i-1])).cmp(x) >= 0 && sm.pos(key(ms[i-1])).cmp(sm.pos(k)) > 0 {
					t.Fatalf("member %q before seek key %q has a larger number", ms[i-1], k[len(prefix):])
				}
				if sm.pos(k).cmp(x) > 0 {
					t.Fatalf("seek key %q of x maps past x", k[len(prefix):])
				}
			}
		})
	}
}

func TestSetPosArithmetic(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 10000 {
		a := setPos{rng.Uint64() >> 1, rng.Uint64()}
		b := setPos{rng.Uint64() >> 1, rng.Uint64()}
		if a.add(b).sub(b) != a {
			t.Fatalf("(%v+%v)-%v != %v", a, b, b, a)
		}
		r := 2 + rng.Uint64N(300)
		q, rem := a.divMod(r)
		if q.mulAdd(r, rem) != a || rem >= r {
			t.Fatalf("divMod(%v, %d) = %v, %d", a, r, q, rem)
		}
		n := setPos{rng.Uint64() >> 40, rng.Uint64() | 1}
		if x := setRandBelow(n); x.cmp(n) >= 0 {
			t.Fatalf("setRandBelow(%v) = %v", n, x)
		}
	}
	if _, ok := (setPos{1 << 62, 0}).mulCheck(4); ok {
		t.Fatal("mulCheck missed an overflow")
	}
	if got := (setPos{1, 0}).float(); got != 0x1p64 {
		t.Fatalf("float = %v", got)
	}
}

// setScanAll runs SSCAN to the end, calling between before each call after
// the first, and returns how often each member came back and the calls.
func setScanAll(t *testing.T, s *Store, key string, a SScanArgs, between func(call int)) (map[string]int, int) {
	t.Helper()
	got := map[string]int{}
	var cursor uint64
	for call := 0; ; call++ {
		if call > 0 && between != nil {
			between(call)
		}
		if call > 100000 {
			t.Fatal("SSCAN does not finish")
		}
		var ms [][]byte
		cursor, ms = setScanCall(t, s, key, cursor, a)
		for _, m := range ms {
			got[string(m)]++
		}
		if cursor == 0 {
			return got, call + 1
		}
	}
}

func setScanCall(t *testing.T, s *Store, key string, cursor uint64, a SScanArgs) (uint64, [][]byte) {
	t.Helper()
	tx := s.Read(false)
	defer tx.Close()
	next, ms, err := tx.SScan(0, []byte(key), cursor, a)
	if err != nil {
		t.Fatal(err)
	}
	return next, ms
}

func TestSetScan(t *testing.T) {
	shapes := []struct {
		name string
		n    int
		fn   func(i int) string
	}{
		{"decimal", 3000, func(i int) string { return fmt.Sprint(i) }},
		{"long common prefix", 2000, func(i int) string { return strings.Repeat("p", 300) + fmt.Sprint(i) }},
		{"shared first 7 bytes in groups", 2000, func(i int) string { return fmt.Sprintf("g%02dxxxxxxxxxx%d", i%20, i) }},
		{"binary with zeros", 1000, func(i int) string { return fmt.Sprintf("\x00\x00%c\x00%c", byte(i>>8), byte(i)) }},
	}
	for _, sh := range shapes {
		for _, count := range []int{1, 10, 1000} {
			t.Run(fmt.Sprintf("%s COUNT %d", sh.name, count), func(t *testing.T) {
				s, _ := openTestStore(t)
				setBig(t, s, "s", sh.n, sh.fn)
				got, calls := setScanAll(t, s, "s", SScanArgs{Count: count}, nil)
				if len(got) != sh.n {
					t.Fatalf("%d members returned of %d", len(got), sh.n)
				}
				for m, c := range got {
					if c != 1 {
						t.Fatalf("%q returned %d times from an unchanged set", m, c)
					}
				}
				t.Logf("%d calls", calls)
				if count == 1 && sh.name == "decimal" && calls < sh.n/2 {
					t.Fatalf("COUNT 1 took only %d calls", calls)
				}
			})
		}
	}
}

func TestSetScanSmallInOneCall(t *testing.T) {
	tests := []struct {
		name  string
		ms    []string
		whole bool
	}{
		{"intset", []string{"1", "2", "-3", "400"}, true},
		{"listpack", []string{"a", "b", "1"}, true},
		{"long member", []string{"a", strings.Repeat("x", 65)}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := openTestStore(t)
			setAddAll(t, s, "s", tt.ms)
			next, got := setScanCall(t, s, "s", 0, SScanArgs{Count: 1})
			if whole := next == 0 && len(got) == len(tt.ms); whole != tt.whole {
				t.Fatalf("cursor %d, %d of %d members", next, len(got), len(tt.ms))
			}
		})
	}
}

func TestSetScanMatch(t *testing.T) {
	s, _ := openTestStore(t)
	setBig(t, s, "s", 2000, func(i int) string { return fmt.Sprintf("%c:%d", 'a'+i%5, i) })
	for _, tt := range []struct {
		pattern string
		want    int
	}{
		{"b:*", 400}, {"*:1?", 10}, {"c:7", 1}, {"d:7", 0}, {"[ab]:1*", 445}, {"zz*", 0},
	} {
		got, _ := setScanAll(t, s, "s", SScanArgs{Count: 7, Pattern: []byte(tt.pattern)}, nil)
		n := 0
		for m := range got {
			n++
			if !strings.HasPrefix(m, tt.pattern[:1]) && tt.pattern[0] != '*' && tt.pattern[0] != '[' {
				t.Fatalf("%q returned for %q", m, tt.pattern)
			}
		}
		if n != tt.want {
			t.Errorf("MATCH %q: %d members, want %d", tt.pattern, n, tt.want)
		}
	}
}

// TestSetScanUnderChurn adds and removes members between calls, including
// ones that shorten the members' common prefix, and checks every member
// present throughout comes back.
func TestSetScanUnderChurn(t *testing.T) {
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(uint64(seed), 2))
	s, _ := openTestStore(t)
	stable := make([]string, 1500)
	for i := range stable {
		stable[i] = fmt.Sprintf("key:%d", i*3)
	}
	setAddAll(t, s, "s", stable)
	got, _ := setScanAll(t, s, "s", SScanArgs{Count: 20}, func(call int) {
		var add, rem []string
		for range 5 {
			add = append(add, fmt.Sprintf("key:%d", rng.IntN(5000)*3+1))
		}
		if call%7 == 0 {
			add = append(add, fmt.Sprintf("%c-outlier", 'A'+rng.IntN(50)))
		}
		if call%5 == 0 {
			rem = append(rem, fmt.Sprintf("key:%d", rng.IntN(5000)*3+1))
		}
		setAddAll(t, s, "s", add)
		writeTx(t, s, []string{"s"}, func(tx *Tx) (int64, error) { return tx.SRem(0, []byte("s"), byteSlices(rem...)) })
	})
	for _, m := range stable {
		if got[m] == 0 {
			t.Fatalf("%q present throughout but never returned", m)
		}
	}
}

func TestSetEncoding(t *testing.T) {
	ints := func(n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = fmt.Sprint(i - 5)
		}
		return out
	}
	tests := []struct {
		name string
		ms   []string
		want string
		// limits changes the encoding limits (CONFIG SET) first.
		limits func(*EncodingLimits)
	}{
		{"intset", ints(10), "intset", nil},
		{"intset at 512", ints(512), "intset", nil},
		{"ints past 512", ints(513), "hashtable", nil},
		{"not canonical ints", []string{"1", "01"}, "listpack", nil},
		{"listpack", []string{"a", "1"}, "listpack", nil},
		{"listpack at 128", append(ints(127), "x"), "listpack", nil},
		{"past 128", append(ints(128), "x"), "hashtable", nil},
		{"64-byte member", []string{strings.Repeat("a", 64)}, "listpack", nil},
		{"65-byte member", []string{strings.Repeat("a", 65)}, "hashtable", nil},
		// Ints past set-max-intset-entries go to a hashtable, even where a
		// listpack would hold them; with no intsets at all, to a listpack.
		{"intset entries 2, 3 ints", ints(3), "hashtable", func(l *EncodingLimits) { l.SetIntsetEntries = 2 }},
		{"listpack entries 600, 550 ints", ints(550), "hashtable", func(l *EncodingLimits) { l.SetEntries = 600 }},
		{"intset entries 0, 3 ints", ints(3), "listpack", func(l *EncodingLimits) { l.SetIntsetEntries = 0 }},
		{"intset entries 0, listpack entries 0", ints(1), "hashtable", func(l *EncodingLimits) { l.SetIntsetEntries, l.SetEntries = 0, 0 }},
		{"listpack value 1", []string{"a", "bc"}, "hashtable", func(l *EncodingLimits) { l.SetValue = 1 }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := openTestStore(t)
			if tt.limits != nil {
				l := DefaultEncodingLimits()
				tt.limits(&l)
				s.SetEncodingLimits(l)
			}
			setAddAll(t, s, "s", tt.ms)
			got := readTx(t, s, func(tx *Tx) (string, error) {
				e, ok, err := tx.SetEncoding(0, []byte("s"))
				if !ok && err == nil {
					err = errors.New("absent")
				}
				return e, err
			})
			if got != tt.want {
				t.Fatalf("encoding %q, want %q", got, tt.want)
			}
		})
	}
}

// Expired sets are absent to every read and replaced by a write.
func TestSetExpired(t *testing.T) {
	s, clock := openTestStore(t)
	setAddAll(t, s, "s", []string{"a", "b"})
	writeTx(t, s, []string{"s"}, func(tx *Tx) (bool, error) {
		return tx.Expire(0, []byte("s"), clock.ms.Load()+1000, ExpireAlways)
	})
	clock.advance(2 * time.Second)
	if n := readTx(t, s, func(tx *Tx) (int64, error) { return tx.SCard(0, []byte("s")) }); n != 0 {
		t.Fatalf("SCARD of an expired set = %d", n)
	}
	if n := writeTx(t, s, []string{"s"}, func(tx *Tx) (int64, error) { return tx.SAdd(0, []byte("s"), byteSlices("a", "c")) }); n != 2 {
		t.Fatalf("SADD to an expired set = %d", n)
	}
	if m := setMembersOf(t, s, "s"); !slices.Equal(m, []string{"a", "c"}) {
		t.Fatalf("members %q: the expired set's members leaked", m)
	}
}

// SMEMBERS on a plain reader must announce the size of the members it then
// sends, even with writers committing meanwhile.
func TestSetMembersConsistentUnderWrites(t *testing.T) {
	s, _ := openTestStore(t)
	setBig(t, s, "s", 2000, func(i int) string { return fmt.Sprint(i) })
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range 200 {
			err := commit(s, byteSlices("s"), func(tx *Tx) error {
				_, err := tx.SAdd(0, []byte("s"), byteSlices(fmt.Sprintf("new%d", i)))
				return err
			})
			if err != nil {
				t.Error(err)
				return
			}
		}
	}()
	for range 50 {
		setMembersOf(t, s, "s")
	}
	<-done
}

// --- Benchmarks ---------------------------------------------------------

// setBenchMember names member i of the benchmarks' sets.
func setBenchMember(i int) string { return fmt.Sprintf("member:%d", i) }

// setBenchBuild fills key with n members in one command (a fresh set reads
// nothing back).
func setBenchBuild(b *testing.B, s *Store, key string, n int) {
	b.Helper()
	ms := make([][]byte, n)
	for i := range ms {
		ms[i] = []byte(setBenchMember(i))
	}
	writeTx(b, s, []string{key}, func(tx *Tx) (int64, error) { return tx.SAdd(0, []byte(key), ms) })
}

// BenchmarkSetBig times the set commands on a 1,000,000-member set: the
// point operations (SISMEMBER, SADD, SREM+SADD) are one or two reads
// whatever the size; SPOP and SRANDMEMBER sample with bounded reads (see
// setSampler); an SSCAN page is a seek and COUNT steps; SINTER of 100
// members with the big set is 100 point reads; SCARD reads the metadata.
func BenchmarkSetBig(b *testing.B) {
	const size = 1_000_000
	s := openBenchStore(b, 64<<20, nil)
	setBenchBuild(b, s, "big", size)
	setBenchBuild(b, s, "small", 100)
	key := []byte("big")
	read := func(b *testing.B, fn func(tx *Tx) error) {
		for range b.N {
			tx := s.Read(false)
			err := fn(tx)
			tx.Close()
			if err != nil {
				b.Fatal(err)
			}
		}
	}
	write := func(b *testing.B, keys [][]byte, fn func(tx *Tx) error) {
		for range b.N {
			tx := s.Begin(keys)
			err := fn(tx)
			if err == nil {
				err = tx.Commit()
			}
			tx.Close()
			if err != nil {
				b.Fatal(err)
			}
		}
	}
	b.Run("SISMEMBER", func(b *testing.B) {
		read(b, func(tx *Tx) error {
			ok, err := tx.SIsMember(0, key, []byte(setBenchMember(rand.IntN(size))))
			if err == nil && !ok {
				err = errors.New("not a member")
			}
			return err
		})
	})
	b.Run("SCARD", func(b *testing.B) {
		read(b, func(tx *Tx) error { _, err := tx.SCard(0, key); return err })
	})
	b.Run("SADD-existing", func(b *testing.B) {
		write(b, [][]byte{key}, func(tx *Tx) error {
			_, err := tx.SAdd(0, key, [][]byte{[]byte(setBenchMember(rand.IntN(size)))})
			return err
		})
	})
	b.Run("SRANDMEMBER", func(b *testing.B) {
		read(b, func(tx *Tx) error { _, _, err := tx.SRandMember(0, key); return err })
	})
	b.Run("SRANDMEMBER-10", func(b *testing.B) {
		read(b, func(tx *Tx) error {
			return tx.SRandMembers(0, key, 10, true, func(uint64) {}, func([]byte) bool { return true })
		})
	})
	b.Run("SSCAN-page", func(b *testing.B) {
		read(b, func(tx *Tx) error {
			m := setBenchMember(rand.IntN(size))
			cursor := uint64(len("member:"))<<56 | scanPos([]byte(m), len("member:"))
			_, ms, err := tx.SScan(0, key, cursor, SScanArgs{Count: 10})
			if err == nil && len(ms) == 0 {
				err = errors.New("empty page")
			}
			return err
		})
	})
	b.Run("SINTER-100x1M", func(b *testing.B) {
		read(b, func(tx *Tx) error {
			ms, err := tx.SInter(0, byteSlices("small", "big"))
			if err == nil && len(ms) != 100 {
				err = fmt.Errorf("%d members", len(ms))
			}
			return err
		})
	})
	b.Run("SINTERCARD-100x1M-LIMIT-10", func(b *testing.B) {
		read(b, func(tx *Tx) error { _, err := tx.SInterCard(0, byteSlices("big", "small"), 10); return err })
	})
	// Last: SPOP shrinks the set (by b.N members, a small share of it).
	b.Run("SPOP", func(b *testing.B) {
		write(b, [][]byte{key}, func(tx *Tx) error {
			_, ok, err := tx.SPop(0, key)
			if err == nil && !ok {
				err = errors.New("empty")
			}
			return err
		})
	})
	b.Run("SPOP-100", func(b *testing.B) {
		write(b, [][]byte{key}, func(tx *Tx) error {
			ms, err := tx.SPopCount(0, key, 100)
			if err == nil && len(ms) != 100 {
				err = fmt.Errorf("%d popped", len(ms))
			}
			return err
		})
	})
}

// BenchmarkSetDelete1M is DEL of a 1,000,000-member set: a metadata delete
// and one range tombstone per family, whatever the size.
func BenchmarkSetDelete1M(b *testing.B) {
	s := openBenchStore(b, 64<<20, nil)
	for i := range b.N {
		b.StopTimer()
		key := fmt.Sprintf("big%d", i)
		setBenchBuild(b, s, key, 1_000_000)
		b.StartTimer()
		tx := s.Begin([][]byte{[]byte(key)})
		ok, err := tx.Delete(0, []byte(key))
		if err == nil {
			err = tx.Commit()
		}
		tx.Close()
		if err != nil || !ok {
			b.Fatalf("DEL = %v, %v", ok, err)
		}
	}
}

// FuzzSetScan checks SSCAN's cursor contract from any cursor, COUNT and
// pattern on a fixed set: every member returned lies at or after the seek
// key the cursor stands for (or the set's start) and before the one the
// next cursor stands for, and matches the pattern.
func FuzzSetScan(f *testing.F) {
	f.Add(uint64(0), uint8(10), "")
	f.Add(uint64(7)<<56|0x31323300000000, uint8(1), "")
	f.Add(uint64(255)<<56|1, uint8(3), "k:1*")
	f.Add(uint64(1)<<63, uint8(0), "*:2?")
	f.Add(^uint64(0), uint8(200), "[")
	f.Fuzz(func(t *testing.T, cursor uint64, count uint8, pattern string) {
		s, _ := openTestStore(t)
		setBig(t, s, "s", 700, func(i int) string { return fmt.Sprintf("k:%d", i*7) })
		a := SScanArgs{Count: int(count) + 1}
		if pattern != "" {
			a.Pattern = []byte(pattern)
		}
		next, ms := setScanCall(t, s, "s", cursor, a)
		// The members run from "k:0" to "k:994", so their common prefix is
		// "k:".
		seekOf := func(c uint64) string {
			sh := int(c >> 56)
			cp := len("k:")
			if c == 0 || sh > cp {
				return ""
			}
			var b [8]byte
			for i := range 8 {
				b[i] = byte(c >> (56 - 8*i))
			}
			return "k:"[:sh] + strings.TrimRight(string(b[1:]), "\x00")
		}
		lo := seekOf(cursor)
		for _, m := range ms {
			if string(m) < lo {
				t.Fatalf("cursor %x: %q before the seek key %q", cursor, m, lo)
			}
			if next != 0 && string(m) >= seekOf(next) {
				t.Fatalf("cursor %x: %q not before the next cursor's seek key %q", cursor, m, seekOf(next))
			}
			if a.Pattern != nil && !glob.Match(a.Pattern, m, false) {
				t.Fatalf("%q returned for MATCH %q", m, pattern)
			}
		}
		if next != 0 && seekOf(next) <= lo {
			t.Fatalf("cursor %x → %x does not move forward", cursor, next)
		}
	})
}

// BenchmarkSPopDrain is redis-benchmark's SPOP workload: one set of 60,000
// "element:%012d" members, built in pipelined SADDs of 1,000, popped one
// member per command, so the pops' tombstones pile up in the memtable as
// they do on a server. The set is rebuilt when it runs low, or, as
// redis-benchmark leaves it, only once it is empty: its last members are
// then popped among the tombstones of all the others.
func BenchmarkSPopDrain(b *testing.B) {
	for _, bc := range []struct {
		name   string
		refill int
	}{{"refill-at-quarter", 60_000 / 4}, {"to-empty", 1}, {"big-to-empty", 1}} {
		b.Run(bc.name, func(b *testing.B) {
			size, batch := 60_000, 1_000
			if bc.name == "big-to-empty" {
				size = 100_800
			}
			s := openBenchStore(b, 64<<20, nil)
			key := []byte("myset")
			fill := func() {
				for first := 0; first < size; first += batch {
					ms := make([][]byte, batch)
					for i := range ms {
						ms[i] = fmt.Appendf(nil, "element:%012d", first+i)
					}
					benchWrite(b, s, key, func(tx *Tx) error { _, err := tx.SAdd(0, key, ms); return err })
				}
			}
			fill()
			left := size
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				if left < bc.refill {
					b.StopTimer()
					fill()
					left = size
					b.StartTimer()
				}
				benchWrite(b, s, key, func(tx *Tx) error {
					_, ok, err := tx.SPop(0, key)
					if err == nil && !ok {
						err = errors.New("empty")
					}
					return err
				})
				left--
			}
		})
	}
}

// setKeptModel returns the model kept for the set at key, or nil.
func setKeptModel(t *testing.T, s *Store, key string) *setModel {
	t.Helper()
	return readTx(t, s, func(tx *Tx) (*setModel, error) {
		c, err := tx.openSet(0, []byte(key))
		if err != nil || !c.Exists {
			return nil, err
		}
		return s.setModels.peek(c.Prefix(encoding.FamilySub)), nil
	})
}

// TestSetModelReuse checks when SPOP and SRANDMEMBER reuse the model an
// earlier sampler learnt: a write inside the members' range keeps it, one
// at or beyond their ends forgets it, and so does a change of size by half.
func TestSetModelReuse(t *testing.T) {
	s, _ := openTestStore(t)
	name := func(i int) string { return fmt.Sprintf("m:%04d", i) }
	setBig(t, s, "s", 1000, name)
	randMember := func() string {
		return string(readTx(t, s, func(tx *Tx) ([]byte, error) {
			m, _, err := tx.SRandMember(0, []byte("s"))
			return m, err
		}))
	}
	sadd := func(ms ...string) {
		writeTx(t, s, []string{"s"}, func(tx *Tx) (int64, error) { return tx.SAdd(0, []byte("s"), byteSlices(ms...)) })
	}
	srem := func(ms ...string) {
		writeTx(t, s, []string{"s"}, func(tx *Tx) (int64, error) { return tx.SRem(0, []byte("s"), byteSlices(ms...)) })
	}
	if setKeptModel(t, s, "s") != nil {
		t.Fatal("a model before any draw")
	}
	randMember()
	m := setKeptModel(t, s, "s")
	if m == nil || string(m.first) != name(0) || string(m.last) != name(999) {
		t.Fatalf("model after a draw: %+v", m)
	}
	randMember()
	if setKeptModel(t, s, "s") != m {
		t.Fatal("the model was not reused")
	}
	sadd("m:0500x")
	srem(name(500))
	if setKeptModel(t, s, "s") != m {
		t.Fatal("a write inside the range forgot the model")
	}
	for _, c := range []struct {
		name  string
		write func()
	}{
		{"SADD above the last", func() { sadd("z") }},
		{"SADD below the first", func() { sadd("a") }},
		{"SREM of the last", func() { srem("z") }},
		{"SREM of the first", func() { srem("a") }},
		{"SMOVE of the first away", func() {
			writeTx(t, s, []string{"s", "t"}, func(tx *Tx) (bool, error) { return tx.SMove(0, []byte("s"), []byte("t"), []byte(name(0))) })
		}},
		{"SPOP of every member", func() {
			for setKeptModel(t, s, "s") != nil {
				writeTx(t, s, []string{"s"}, func(tx *Tx) ([]byte, error) {
					m, _, err := tx.SPop(0, []byte("s"))
					return m, err
				})
			}
		}},
	} {
		randMember()
		before := setKeptModel(t, s, "s")
		if before == nil {
			t.Fatalf("%s: no model after a draw", c.name)
		}
		c.write()
		if after := setKeptModel(t, s, "s"); after != nil {
			t.Fatalf("%s: the model was kept", c.name)
		}
	}
	// A model is learnt again once the size has halved (to more than
	// setReadAll members, which are drawn without a model).
	setBig(t, s, "s", 2000, name)
	randMember()
	m = setKeptModel(t, s, "s")
	var doomed []string
	readTx(t, s, func(tx *Tx) (bool, error) {
		return true, tx.SMembers(0, []byte("s"), func(int64) {}, func(b []byte) {
			if n := string(b); n > string(m.first) && n < string(m.last) && len(doomed) <= int(m.size/2) {
				doomed = append(doomed, n)
			}
		})
	})
	writeTx(t, s, []string{"s"}, func(tx *Tx) (int64, error) {
		// SREM by the store API keeps the ends, so only the size tells.
		return tx.SRem(0, []byte("s"), byteSlices(doomed...))
	})
	if setKeptModel(t, s, "s") != m {
		t.Fatal("removals inside the range forgot the model")
	}
	randMember()
	if setKeptModel(t, s, "s") == m {
		t.Fatal("the model was reused after the size halved")
	}
	if err := Check(s); err != nil {
		t.Fatal(err)
	}
}

// TestSetStaleModel draws with a model learnt before members were added
// outside its range, even outside its common prefix, as a reader racing a
// writer can leave behind: the draws stay members of the set, and those
// members can come up.
func TestSetStaleModel(t *testing.T) {
	s, _ := openTestStore(t)
	setBig(t, s, "s", 1000, func(i int) string { return fmt.Sprintf("m:%04d", i) })
	var stale *setModel
	var prefix []byte
	readTx(t, s, func(tx *Tx) (bool, error) {
		_, _, err := tx.SRandMember(0, []byte("s"))
		c, _ := tx.openSet(0, []byte("s"))
		prefix = bytes.Clone(c.Prefix(encoding.FamilySub))
		stale = s.setModels.peek(prefix)
		return true, err
	})
	writeTx(t, s, []string{"s"}, func(tx *Tx) (int64, error) { return tx.SAdd(0, []byte("s"), byteSlices("", "a", "m:", "z", "zz")) })
	members := map[string]bool{}
	readTx(t, s, func(tx *Tx) (bool, error) {
		return true, tx.SMembers(0, []byte("s"), func(int64) {}, func(m []byte) { members[string(m)] = true })
	})
	counts := map[string]int{}
	for range 20 {
		s.setModels.put(prefix, stale)
		for range 500 {
			m := readTx(t, s, func(tx *Tx) ([]byte, error) {
				m, _, err := tx.SRandMember(0, []byte("s"))
				return m, err
			})
			if !members[string(m)] {
				t.Fatalf("drew %q, not a member", m)
			}
			counts[string(m)]++
		}
	}
	// The members outside the model's range are drawn rarely (their gaps
	// span the model's whole top), the others as evenly as ever.
	if len(counts) < 990 {
		t.Errorf("%d distinct members in 10,000 draws from 1,005", len(counts))
	}
	t.Logf("outside the range: %d %d %d %d %d", counts[""], counts["a"], counts["m:"], counts["z"], counts["zz"])
}

// TestSetPopBatch checks SPOP on a set that it draws by scanning: a batch
// is a uniform sample (chi-square of how often each member is picked over
// many scans), every other write that adds or removes members drops the
// batch, and SPOP drains the set with every member exactly once.
func TestSetPopBatch(t *testing.T) {
	s, _ := openTestStore(t)
	const n = 1000
	// Members of 4 KB: the batch's byte bound makes it a sample of about
	// 250 rather than the whole set.
	pad := strings.Repeat("x", 4000)
	name := func(i int) string { return fmt.Sprintf("m:%d:%s", i*i, pad) }
	setBig(t, s, "s", n, name)

	counts := map[string]int{}
	picks, k := 0, 0
	readTx(t, s, func(tx *Tx) (bool, error) {
		c, err := tx.openSet(0, []byte("s"))
		if err != nil {
			return false, err
		}
		for range 400 {
			b, err := tx.setPopSample(c)
			if err != nil {
				return false, err
			}
			k = len(b.members)
			seen := map[string]bool{}
			for _, m := range b.members {
				if seen[string(m)] {
					t.Fatalf("%.10q twice in one batch", m)
				}
				seen[string(m)] = true
				counts[string(m)]++
				picks++
			}
		}
		return true, nil
	})
	if k < 100 || k > n/2 {
		t.Fatalf("batches of %d members", k)
	}
	want := float64(picks) / n
	chi := float64(n-len(counts)) * want
	for _, c := range counts {
		chi += (float64(c) - want) * (float64(c) - want) / want
	}
	chi /= n - 1
	t.Logf("%d picks in batches of %d: chi-square/df %.2f", picks, k, chi)
	// Without replacement within a batch, a fair sample's chi-square is
	// a little below 1.
	if chi > 1.3 {
		t.Errorf("chi-square/df %.2f over %d picks", chi, picks)
	}

	popped := map[string]bool{}
	spop := func() {
		m := string(writeTx(t, s, []string{"s"}, func(tx *Tx) ([]byte, error) {
			m, _, err := tx.SPop(0, []byte("s"))
			return m, err
		}))
		if popped[m] {
			t.Fatalf("%.10q popped twice", m)
		}
		popped[m] = true
	}
	prefix := readTx(t, s, func(tx *Tx) ([]byte, error) {
		c, err := tx.openSet(0, []byte("s"))
		return bytes.Clone(c.Prefix(encoding.FamilySub)), err
	})
	hasBatch := func() bool {
		b := s.setPops.take(prefix)
		if b != nil {
			s.setPops.put(prefix, b)
		}
		return b != nil
	}
	writeTx(t, s, []string{"t"}, func(tx *Tx) (int64, error) { return tx.SAdd(0, []byte("t"), byteSlices("moved")) })
	added := 0
	// unpopped returns a member still in the set.
	unpopped := func() string {
		for i := 0; ; i++ {
			if !popped[name(i)] {
				popped[name(i)] = true
				return name(i)
			}
		}
	}
	for _, c := range []struct {
		name  string
		write func()
	}{
		{"SREM", func() {
			writeTx(t, s, []string{"s"}, func(tx *Tx) (int64, error) { return tx.SRem(0, []byte("s"), byteSlices(unpopped())) })
		}},
		{"SADD", func() {
			writeTx(t, s, []string{"s"}, func(tx *Tx) (int64, error) { return tx.SAdd(0, []byte("s"), byteSlices("new")) })
			added++
		}},
		{"SMOVE in", func() {
			writeTx(t, s, []string{"t", "s"}, func(tx *Tx) (bool, error) { return tx.SMove(0, []byte("t"), []byte("s"), []byte("moved")) })
			added++
		}},
		{"SMOVE out", func() {
			writeTx(t, s, []string{"s", "t"}, func(tx *Tx) (bool, error) { return tx.SMove(0, []byte("s"), []byte("t"), []byte(unpopped())) })
		}},
		{"SPOP with a count", func() {
			for _, m := range writeTx(t, s, []string{"s"}, func(tx *Tx) ([][]byte, error) { return tx.SPopCount(0, []byte("s"), 2) }) {
				popped[string(m)] = true
			}
		}},
	} {
		spop()
		if !hasBatch() {
			t.Fatalf("before %s: no batch after SPOP", c.name)
		}
		c.write()
		if hasBatch() {
			t.Fatalf("%s kept the batch", c.name)
		}
	}
	// Drain: SPOP reads the set whole from setReadAll members on.
	for readTx(t, s, func(tx *Tx) (int64, error) { return tx.SCard(0, []byte("s")) }) > 0 {
		spop()
	}
	if len(popped) != n+added {
		t.Fatalf("%d members popped, want %d", len(popped), n+added)
	}
	for _, m := range []string{"new", "moved", name(n - 1)} {
		if !popped[m] {
			t.Errorf("%.10q never popped", m)
		}
	}
}
