package store

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cairndb/cairn/internal/encoding"
	"github.com/cairndb/cairn/internal/engine"
	"github.com/cockroachdb/pebble/v2/vfs"
)

// lrangeAll reads a whole list through a reading Tx.
func lrangeAll(t *testing.T, s *Store, db int, key string) []string {
	t.Helper()
	tx := s.Read(false)
	defer tx.Close()
	items, err := tx.LRange(db, []byte(key), 0, -1)
	if err != nil {
		t.Fatal(err)
	}
	return stringsOf(items)
}

func lrpush(t *testing.T, s *Store, key string, items ...string) {
	t.Helper()
	write(t, s, []string{key}, func(tx *Tx) error {
		_, err := tx.ListPush(0, []byte(key), ListRight, byteSlices(items...), false)
		return err
	})
}

func TestListSpan(t *testing.T) {
	for _, c := range []struct {
		start, stop int64
		size        uint64
		from, to    uint64
		empty       bool
	}{
		{0, -1, 5, 0, 5, false},
		{0, 0, 5, 0, 1, false},
		{1, 3, 5, 1, 4, false},
		{-2, -1, 5, 3, 5, false},
		{-100, 100, 5, 0, 5, false},
		{-100, -6, 5, 0, 0, true},
		{5, 10, 5, 0, 0, true},
		{3, 1, 5, 0, 0, true},
		{-1, -2, 5, 0, 0, true},
		{0, -1, 0, 0, 0, true},
		{math.MinInt64, math.MaxInt64, 3, 0, 3, false},
		{math.MaxInt64, math.MaxInt64, 3, 0, 0, true},
		{math.MinInt64, math.MinInt64, 3, 0, 0, true},
	} {
		from, to, empty := listSpan(c.start, c.stop, c.size)
		if from != c.from || to != c.to || empty != c.empty {
			t.Errorf("listSpan(%d, %d, %d) = %d, %d, %v; want %d, %d, %v", c.start, c.stop, c.size, from, to, empty, c.from, c.to, c.empty)
		}
	}
}

func TestListIndex(t *testing.T) {
	for _, c := range []struct {
		index int64
		size  uint64
		pos   uint64
		ok    bool
	}{
		{0, 3, 0, true},
		{2, 3, 2, true},
		{3, 3, 0, false},
		{-1, 3, 2, true},
		{-3, 3, 0, true},
		{-4, 3, 0, false},
		{0, 0, 0, false},
		{-1, 0, 0, false},
		{math.MinInt64, 3, 0, false},
		{math.MaxInt64, 3, 0, false},
	} {
		pos, ok := listIndex(c.index, c.size)
		if pos != c.pos || ok != c.ok {
			t.Errorf("listIndex(%d, %d) = %d, %v; want %d, %v", c.index, c.size, pos, ok, c.pos, c.ok)
		}
	}
}

func TestListPushPop(t *testing.T) {
	s, _ := openTestStore(t)
	var n int64
	write(t, s, []string{"l"}, func(tx *Tx) (err error) {
		if n, err = tx.ListPush(0, []byte("l"), ListLeft, byteSlices("a", "b", "c"), false); err != nil {
			return err
		}
		n, err = tx.ListPush(0, []byte("l"), ListRight, byteSlices("d", "e"), false)
		return err
	})
	if n != 5 {
		t.Fatalf("length after pushes = %d, want 5", n)
	}
	if got, want := lrangeAll(t, s, 0, "l"), []string{"c", "b", "a", "d", "e"}; !slices.Equal(got, want) {
		t.Fatalf("LRANGE = %q, want %q", got, want)
	}
	for _, c := range []struct {
		end   ListEnd
		count int64
		want  []string
	}{
		{ListLeft, 1, []string{"c"}},
		{ListRight, 2, []string{"e", "d"}},
		{ListLeft, 0, []string{}},
		{ListLeft, math.MaxInt64, []string{"b", "a"}},
	} {
		var items [][]byte
		var found bool
		write(t, s, []string{"l"}, func(tx *Tx) (err error) {
			items, found, err = tx.ListPop(0, []byte("l"), c.end, c.count)
			return err
		})
		if !found || !slices.Equal(stringsOf(items), c.want) {
			t.Fatalf("pop %d from %d = %q, %v; want %q", c.count, c.end, stringsOf(items), found, c.want)
		}
	}
	if s.DBSize(0) != 0 {
		t.Fatalf("emptied list still exists")
	}
	write(t, s, []string{"l"}, func(tx *Tx) error {
		items, found, err := tx.ListPop(0, []byte("l"), ListLeft, 1)
		if err != nil || found || items != nil {
			return fmt.Errorf("pop of an absent list = %q, %v, %v", items, found, err)
		}
		n, err := tx.ListPush(0, []byte("l"), ListLeft, byteSlices("x"), true)
		if err != nil || n != 0 {
			return fmt.Errorf("LPUSHX on an absent list = %d, %v", n, err)
		}
		return nil
	})
	if s.DBSize(0) != 0 {
		t.Fatalf("LPUSHX created a list")
	}
}

func TestListWrongType(t *testing.T) {
	s, _ := openTestStore(t)
	set(t, s, 0, "str", "v", SetArgs{})
	lrpush(t, s, "l", "a")
	k := []byte("str")
	tx := s.Begin(byteSlices("str", "l"))
	defer tx.Close()
	for name, f := range map[string]func() error{
		"push":  func() error { _, err := tx.ListPush(0, k, ListLeft, byteSlices("a"), false); return err },
		"pushx": func() error { _, err := tx.ListPush(0, k, ListLeft, byteSlices("a"), true); return err },
		"pop":   func() error { _, _, err := tx.ListPop(0, k, ListLeft, 1); return err },
		"mpop": func() error {
			_, _, err := tx.ListMPop(0, byteSlices("absent", "str", "l"), ListLeft, 1, false)
			return err
		},
		"llen":   func() error { _, err := tx.LLen(0, k); return err },
		"lindex": func() error { _, _, err := tx.LIndex(0, k, 0); return err },
		"lrange": func() error { _, err := tx.LRange(0, k, 0, -1); return err },
		"lset":   func() error { return tx.LSet(0, k, 0, []byte("x")) },
		"linsert": func() error {
			_, err := tx.LInsert(0, k, false, []byte("a"), []byte("x"))
			return err
		},
		"lrem":  func() error { _, err := tx.LRem(0, k, 0, []byte("a")); return err },
		"ltrim": func() error { return tx.LTrim(0, k, 0, 1) },
		"lpos":  func() error { _, err := tx.LPos(0, k, []byte("a"), LPosArgs{Rank: 1}); return err },
		"src":   func() error { _, _, err := tx.LMove(0, k, []byte("l"), ListLeft, ListLeft); return err },
		"dst":   func() error { _, _, err := tx.LMove(0, []byte("l"), k, ListLeft, ListLeft); return err },
		"encoding": func() error {
			_, _, err := tx.ListEncoding(0, k)
			return err
		},
	} {
		if err := f(); !errors.Is(err, ErrWrongType) {
			t.Errorf("%s on a string: %v, want WRONGTYPE", name, err)
		}
	}
	// LMPOP stops at the first list, before a later key of another type.
	key, items, err := tx.ListMPop(0, byteSlices("absent", "l", "str"), ListLeft, 5, false)
	if err != nil || string(key) != "l" || !slices.Equal(stringsOf(items), []string{"a"}) {
		t.Fatalf("LMPOP absent l str = %q %q %v", key, stringsOf(items), err)
	}
	// Skipping other types, a list after them is found, and none is nil.
	if _, err := tx.ListPush(0, []byte("l"), ListRight, byteSlices("b"), false); err != nil {
		t.Fatal(err)
	}
	key, items, err = tx.ListMPop(0, byteSlices("str", "l"), ListLeft, 1, true)
	if err != nil || string(key) != "l" || !slices.Equal(stringsOf(items), []string{"b"}) {
		t.Fatalf("LMPOP str l skipping = %q %q %v", key, stringsOf(items), err)
	}
	if key, _, err = tx.ListMPop(0, byteSlices("str", "absent"), ListLeft, 1, true); key != nil || err != nil {
		t.Fatalf("LMPOP str absent skipping = %q %v", key, err)
	}
}

func TestListMove(t *testing.T) {
	for _, c := range []struct {
		name               string
		src, dst           []string
		from, to           ListEnd
		item               string
		wantSrc, wantDst   []string
		srcIsDst, srcAbsnt bool
	}{
		{name: "right-left", src: []string{"a", "b", "c"}, dst: []string{"x"}, from: ListRight, to: ListLeft, item: "c", wantSrc: []string{"a", "b"}, wantDst: []string{"c", "x"}},
		{name: "left-right", src: []string{"a", "b"}, dst: []string{"x"}, from: ListLeft, to: ListRight, item: "a", wantSrc: []string{"b"}, wantDst: []string{"x", "a"}},
		{name: "new dst", src: []string{"a"}, from: ListLeft, to: ListLeft, item: "a", wantSrc: []string{}, wantDst: []string{"a"}},
		{name: "rotate left-right", src: []string{"a", "b", "c"}, from: ListLeft, to: ListRight, item: "a", wantSrc: []string{"b", "c", "a"}, srcIsDst: true},
		{name: "rotate right-left", src: []string{"a", "b", "c"}, from: ListRight, to: ListLeft, item: "c", wantSrc: []string{"c", "a", "b"}, srcIsDst: true},
		{name: "rotate left-left", src: []string{"a", "b", "c"}, from: ListLeft, to: ListLeft, item: "a", wantSrc: []string{"a", "b", "c"}, srcIsDst: true},
		{name: "rotate one", src: []string{"a"}, from: ListRight, to: ListLeft, item: "a", wantSrc: []string{"a"}, srcIsDst: true},
		{name: "absent src", dst: []string{"x"}, from: ListLeft, to: ListLeft, wantSrc: []string{}, wantDst: []string{"x"}, srcAbsnt: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, _ := openTestStore(t)
			if len(c.src) > 0 {
				lrpush(t, s, "src", c.src...)
			}
			if len(c.dst) > 0 {
				lrpush(t, s, "dst", c.dst...)
			}
			dst := "dst"
			if c.srcIsDst {
				dst = "src"
			}
			var item []byte
			var found bool
			write(t, s, []string{"src", dst}, func(tx *Tx) (err error) {
				item, found, err = tx.LMove(0, []byte("src"), []byte(dst), c.from, c.to)
				return err
			})
			if found == c.srcAbsnt || string(item) != c.item {
				t.Fatalf("LMOVE = %q, %v", item, found)
			}
			if got := lrangeAll(t, s, 0, "src"); !slices.Equal(got, c.wantSrc) {
				t.Fatalf("src = %q, want %q", got, c.wantSrc)
			}
			if !c.srcIsDst {
				if got := lrangeAll(t, s, 0, "dst"); !slices.Equal(got, c.wantDst) {
					t.Fatalf("dst = %q, want %q", got, c.wantDst)
				}
			}
		})
	}
}

func TestLInsertLRemLTrim(t *testing.T) {
	base := []string{"a", "b", "c", "a", "b", "c", "a"}
	for _, c := range []struct {
		name string
		op   func(tx *Tx, k []byte) (int64, error)
		n    int64
		want []string
	}{
		{"insert before first", func(tx *Tx, k []byte) (int64, error) { return tx.LInsert(0, k, false, []byte("a"), []byte("x")) }, 8, []string{"x", "a", "b", "c", "a", "b", "c", "a"}},
		{"insert after first", func(tx *Tx, k []byte) (int64, error) { return tx.LInsert(0, k, true, []byte("a"), []byte("x")) }, 8, []string{"a", "x", "b", "c", "a", "b", "c", "a"}},
		{"insert before c", func(tx *Tx, k []byte) (int64, error) { return tx.LInsert(0, k, false, []byte("c"), []byte("x")) }, 8, []string{"a", "b", "x", "c", "a", "b", "c", "a"}},
		{"insert after b", func(tx *Tx, k []byte) (int64, error) { return tx.LInsert(0, k, true, []byte("b"), []byte("x")) }, 8, []string{"a", "b", "x", "c", "a", "b", "c", "a"}},
		{"insert missing pivot", func(tx *Tx, k []byte) (int64, error) { return tx.LInsert(0, k, true, []byte("z"), []byte("x")) }, -1, base},
		{"rem 1 a", func(tx *Tx, k []byte) (int64, error) { return tx.LRem(0, k, 1, []byte("a")) }, 1, []string{"b", "c", "a", "b", "c", "a"}},
		{"rem 2 a", func(tx *Tx, k []byte) (int64, error) { return tx.LRem(0, k, 2, []byte("a")) }, 2, []string{"b", "c", "b", "c", "a"}},
		{"rem -1 a", func(tx *Tx, k []byte) (int64, error) { return tx.LRem(0, k, -1, []byte("a")) }, 1, []string{"a", "b", "c", "a", "b", "c"}},
		{"rem -2 b", func(tx *Tx, k []byte) (int64, error) { return tx.LRem(0, k, -2, []byte("b")) }, 2, []string{"a", "c", "a", "c", "a"}},
		{"rem all a", func(tx *Tx, k []byte) (int64, error) { return tx.LRem(0, k, 0, []byte("a")) }, 3, []string{"b", "c", "b", "c"}},
		{"rem all c", func(tx *Tx, k []byte) (int64, error) { return tx.LRem(0, k, 0, []byte("c")) }, 2, []string{"a", "b", "a", "b", "a"}},
		{"rem min int", func(tx *Tx, k []byte) (int64, error) { return tx.LRem(0, k, math.MinInt64, []byte("b")) }, 2, []string{"a", "c", "a", "c", "a"}},
		{"rem none", func(tx *Tx, k []byte) (int64, error) { return tx.LRem(0, k, 0, []byte("z")) }, 0, base},
		{"trim middle", func(tx *Tx, k []byte) (int64, error) { return 0, tx.LTrim(0, k, 1, -2) }, 0, []string{"b", "c", "a", "b", "c"}},
		{"trim nothing", func(tx *Tx, k []byte) (int64, error) { return 0, tx.LTrim(0, k, 0, -1) }, 0, base},
		{"trim all", func(tx *Tx, k []byte) (int64, error) { return 0, tx.LTrim(0, k, 5, 1) }, 0, []string{}},
		{"trim tail", func(tx *Tx, k []byte) (int64, error) { return 0, tx.LTrim(0, k, -2, 100) }, 0, []string{"c", "a"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, _ := openTestStore(t)
			lrpush(t, s, "l", base...)
			var n int64
			write(t, s, []string{"l"}, func(tx *Tx) (err error) {
				n, err = c.op(tx, []byte("l"))
				return err
			})
			if n != c.n {
				t.Fatalf("reply %d, want %d", n, c.n)
			}
			if got := lrangeAll(t, s, 0, "l"); !slices.Equal(got, c.want) {
				t.Fatalf("list = %q, want %q", got, c.want)
			}
		})
	}
	// Absent keys.
	s, _ := openTestStore(t)
	write(t, s, []string{"l"}, func(tx *Tx) error {
		if n, err := tx.LInsert(0, []byte("l"), false, []byte("a"), []byte("x")); n != 0 || err != nil {
			return fmt.Errorf("LINSERT absent = %d, %v", n, err)
		}
		if n, err := tx.LRem(0, []byte("l"), 0, []byte("a")); n != 0 || err != nil {
			return fmt.Errorf("LREM absent = %d, %v", n, err)
		}
		if err := tx.LTrim(0, []byte("l"), 0, 1); err != nil {
			return err
		}
		if err := tx.LSet(0, []byte("l"), 0, []byte("x")); err != ErrNoSuchKey {
			return fmt.Errorf("LSET absent = %v", err)
		}
		return nil
	})
	if s.DBSize(0) != 0 {
		t.Fatal("a write to an absent list created it")
	}
}

func TestLSetLIndex(t *testing.T) {
	s, _ := openTestStore(t)
	lrpush(t, s, "l", "a", "b", "c")
	write(t, s, []string{"l"}, func(tx *Tx) error {
		for _, c := range []struct {
			index int64
			err   error
		}{{0, nil}, {-1, nil}, {3, ErrIndexRange}, {-4, ErrIndexRange}, {math.MinInt64, ErrIndexRange}} {
			if err := tx.LSet(0, []byte("l"), c.index, []byte(fmt.Sprint(c.index))); err != c.err {
				return fmt.Errorf("LSET %d: %v, want %v", c.index, err, c.err)
			}
		}
		return nil
	})
	tx := s.Read(false)
	defer tx.Close()
	for _, c := range []struct {
		index int64
		want  string
		found bool
	}{{0, "0", true}, {1, "b", true}, {2, "-1", true}, {-1, "-1", true}, {-3, "0", true}, {3, "", false}, {-4, "", false}} {
		v, found, err := tx.LIndex(0, []byte("l"), c.index)
		if err != nil || found != c.found || string(v) != c.want {
			t.Errorf("LINDEX %d = %q, %v, %v; want %q, %v", c.index, v, found, err, c.want, c.found)
		}
	}
	if _, found, err := tx.LIndex(0, []byte("absent"), 0); found || err != nil {
		t.Errorf("LINDEX of an absent key = %v, %v", found, err)
	}
}

func TestLPos(t *testing.T) {
	s, _ := openTestStore(t)
	lrpush(t, s, "l", "a", "b", "c", "1", "2", "3", "c", "c")
	tx := s.Read(false)
	defer tx.Close()
	for _, c := range []struct {
		value string
		a     LPosArgs
		want  []int64
	}{
		{"c", LPosArgs{Rank: 1, Count: 1}, []int64{2}},
		{"c", LPosArgs{Rank: 1}, []int64{2, 6, 7}},
		{"c", LPosArgs{Rank: 2}, []int64{6, 7}},
		{"c", LPosArgs{Rank: 2, Count: 1}, []int64{6}},
		{"c", LPosArgs{Rank: -1}, []int64{7, 6, 2}},
		{"c", LPosArgs{Rank: -2, Count: 1}, []int64{6}},
		{"c", LPosArgs{Rank: 4}, nil},
		{"c", LPosArgs{Rank: -4}, nil},
		{"c", LPosArgs{Rank: 1, MaxLen: 2}, nil},
		{"c", LPosArgs{Rank: 1, MaxLen: 3}, []int64{2}},
		{"c", LPosArgs{Rank: -1, MaxLen: 1}, []int64{7}},
		{"c", LPosArgs{Rank: -1, MaxLen: 5}, []int64{7, 6}},
		{"c", LPosArgs{Rank: -1, MaxLen: 6}, []int64{7, 6, 2}},
		{"c", LPosArgs{Rank: 1, MaxLen: 100}, []int64{2, 6, 7}},
		{"c", LPosArgs{Rank: math.MaxInt64}, nil},
		{"c", LPosArgs{Rank: -math.MaxInt64}, nil},
		{"z", LPosArgs{Rank: 1}, nil},
	} {
		got, err := tx.LPos(0, []byte("l"), []byte(c.value), c.a)
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("LPOS %s %+v = %v, %v; want %v", c.value, c.a, got, err, c.want)
		}
	}
}

// TestListModel runs random list operations against a slice model and
// checks the whole list and the store's invariants as it goes.
func TestListModel(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, seed))
	s, _ := openTestStore(t)
	key := []byte("l")
	var model []string
	val := func() string { return fmt.Sprint(rng.IntN(6)) }
	idx := func() int64 { return int64(rng.IntN(2*len(model)+4) - len(model) - 2) }
	for step := range 3000 {
		var desc string
		write(t, s, []string{"l", "m"}, func(tx *Tx) error {
			switch op := rng.IntN(12); op {
			case 0, 1:
				items := make([]string, 1+rng.IntN(40))
				for i := range items {
					items[i] = val()
				}
				end := ListEnd(rng.IntN(2))
				desc = fmt.Sprintf("push %d %q", end, items)
				n, err := tx.ListPush(0, key, end, byteSlices(items...), false)
				for _, v := range items {
					if end == ListLeft {
						model = append([]string{v}, model...)
					} else {
						model = append(model, v)
					}
				}
				if err == nil && n != int64(len(model)) {
					err = fmt.Errorf("length %d", n)
				}
				return err
			case 2, 3:
				end := ListEnd(rng.IntN(2))
				count := int64(rng.IntN(30))
				desc = fmt.Sprintf("pop %d %d", end, count)
				items, found, err := tx.ListPop(0, key, end, count)
				if err != nil {
					return err
				}
				if found != (len(model) > 0) {
					return fmt.Errorf("found %v", found)
				}
				n := min(int(count), len(model))
				var want []string
				if end == ListLeft {
					want, model = slices.Clone(model[:n]), model[n:]
				} else {
					want = slices.Clone(model[len(model)-n:])
					slices.Reverse(want)
					model = model[:len(model)-n]
				}
				if found && !slices.Equal(stringsOf(items), want) {
					return fmt.Errorf("popped %q, want %q", stringsOf(items), want)
				}
				return nil
			case 4:
				i, v := idx(), val()
				desc = fmt.Sprintf("lset %d %s", i, v)
				err := tx.LSet(0, key, i, []byte(v))
				p, ok := listIndex(i, uint64(len(model)))
				switch {
				case len(model) == 0:
					if err != ErrNoSuchKey {
						return fmt.Errorf("LSET on empty: %v", err)
					}
				case !ok:
					if err != ErrIndexRange {
						return fmt.Errorf("LSET out of range: %v", err)
					}
				case err != nil:
					return err
				default:
					model[p] = v
				}
				return nil
			case 5, 6:
				after, pivot, v := rng.IntN(2) == 1, val(), val()
				desc = fmt.Sprintf("linsert %v %s %s", after, pivot, v)
				n, err := tx.LInsert(0, key, after, []byte(pivot), []byte(v))
				if err != nil {
					return err
				}
				want := int64(len(model))
				if at := slices.Index(model, pivot); at >= 0 {
					if after {
						at++
					}
					model = slices.Insert(model, at, v)
					want = int64(len(model))
				} else if len(model) > 0 {
					want = -1
				}
				if n != want {
					return fmt.Errorf("reply %d, want %d", n, want)
				}
				return nil
			case 7, 8:
				count, v := int64(rng.IntN(7)-3), val()
				desc = fmt.Sprintf("lrem %d %s", count, v)
				n, err := tx.LRem(0, key, count, []byte(v))
				if err != nil {
					return err
				}
				removed := 0
				keep := make([]bool, len(model))
				for i := range keep {
					keep[i] = true
				}
				for j := range model {
					i := j
					if count < 0 {
						i = len(model) - 1 - j
					}
					if model[i] == v && (count == 0 || removed < int(max(count, -count))) {
						keep[i] = false
						removed++
					}
				}
				var next []string
				for i, k := range keep {
					if k {
						next = append(next, model[i])
					}
				}
				model = next
				if n != int64(removed) {
					return fmt.Errorf("removed %d, want %d", n, removed)
				}
				return nil
			case 9:
				start, stop := idx(), idx()
				if rng.IntN(3) == 0 {
					stop = -1
				}
				desc = fmt.Sprintf("ltrim %d %d", start, stop)
				if err := tx.LTrim(0, key, start, stop); err != nil {
					return err
				}
				from, to, empty := listSpan(start, stop, uint64(len(model)))
				if empty {
					model = nil
				} else {
					model = model[from:to]
				}
				return nil
			case 10:
				from, to := ListEnd(rng.IntN(2)), ListEnd(rng.IntN(2))
				desc = fmt.Sprintf("rotate %d %d", from, to)
				item, found, err := tx.LMove(0, key, key, from, to)
				if err != nil || found != (len(model) > 0) {
					return fmt.Errorf("found %v: %v", found, err)
				}
				if !found {
					return nil
				}
				var v string
				if from == ListLeft {
					v, model = model[0], model[1:]
				} else {
					v, model = model[len(model)-1], model[:len(model)-1]
				}
				if to == ListLeft {
					model = append([]string{v}, model...)
				} else {
					model = append(model, v)
				}
				if string(item) != v {
					return fmt.Errorf("moved %q, want %q", item, v)
				}
				return nil
			default:
				// Move to and from a second list.
				desc = "move l m; move m l"
				if _, _, err := tx.LMove(0, key, []byte("m"), ListRight, ListLeft); err != nil {
					return err
				}
				_, _, err := tx.LMove(0, []byte("m"), key, ListLeft, ListRight)
				return err
			}
		})
		if got := lrangeAll(t, s, 0, "l"); !slices.Equal(got, model) && !(len(got) == 0 && len(model) == 0) {
			t.Fatalf("step %d (%s): list %q, model %q", step, desc, got, model)
		}
		if step%100 == 0 {
			if err := Check(s); err != nil {
				t.Fatalf("step %d (%s): %v", step, desc, err)
			}
		}
	}
}

// TestListReadsAreConsistent reads the head of a list that a writer keeps
// non-empty while it pushes and pops: a read-only LINDEX or LRANGE must
// never see the metadata of one state and the items of another.
func TestListReadsAreConsistent(t *testing.T) {
	s, _ := openTestStore(t)
	lrpush(t, s, "q", "0")
	var stop atomic.Bool
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 1; !stop.Load(); i++ {
			err := commit(s, byteSlices("q"), func(tx *Tx) error {
				if _, err := tx.ListPush(0, []byte("q"), ListRight, byteSlices(fmt.Sprint(i)), false); err != nil {
					return err
				}
				_, _, err := tx.ListPop(0, []byte("q"), ListLeft, 1)
				return err
			})
			if err != nil {
				t.Error(err)
				return
			}
		}
	}()
	deadline := time.Now().Add(300 * time.Millisecond)
	for time.Now().Before(deadline) {
		tx := s.Read(false)
		v, found, err := tx.LIndex(0, []byte("q"), 0)
		items, err2 := tx.LRange(0, []byte("q"), 0, -1)
		tx.Close()
		if err != nil || err2 != nil || !found || len(items) != 1 {
			stop.Store(true)
			wg.Wait()
			t.Fatalf("LINDEX q 0 = %q, %v, %v; LRANGE = %q, %v", v, found, err, stringsOf(items), err2)
		}
	}
	stop.Store(true)
	wg.Wait()
}

// TestListCorruptionIsReported deletes an item behind the store's back.
func TestListCorruptionIsReported(t *testing.T) {
	s, _ := openTestStore(t)
	lrpush(t, s, "l", "a", "b", "c")
	tx := s.Read(false)
	m, _, err := tx.typedMeta(0, []byte("l"), encoding.TypeList)
	tx.Close()
	if err != nil {
		t.Fatal(err)
	}
	l, _ := encoding.DecodeListMeta(m.Value)
	p := encoding.AppendSubKeyPrefix(nil, encoding.FamilySub, s.phys(0), []byte("l"), m.Version)
	b := s.eng.NewBatch()
	_ = b.Delete(encoding.AppendListIndex(nil, p, l.Head+1))
	if err := b.Commit(false); err != nil {
		t.Fatal(err)
	}
	tx = s.Read(false)
	_, err1 := tx.LRange(0, []byte("l"), 0, -1)
	_, _, err2 := tx.LIndex(0, []byte("l"), 1)
	tx.Close()
	if !errors.Is(err1, encoding.ErrCorrupt) || !errors.Is(err2, encoding.ErrCorrupt) {
		t.Fatalf("LRANGE: %v; LINDEX: %v; want corruption errors", err1, err2)
	}
	// Put it back so the invariant check at the end passes.
	b = s.eng.NewBatch()
	_ = b.Set(encoding.AppendListIndex(nil, p, l.Head+1), []byte("b"))
	if err := b.Commit(false); err != nil {
		t.Fatal(err)
	}
}

func TestListEncoding(t *testing.T) {
	s, _ := openTestStore(t)
	lrpush(t, s, "l", "a")
	tx := s.Read(false)
	defer tx.Close()
	if enc, ok, err := tx.ListEncoding(0, []byte("l")); enc != "quicklist" || !ok || err != nil {
		t.Fatalf("encoding = %q, %v, %v", enc, ok, err)
	}
	if _, ok, err := tx.ListEncoding(0, []byte("absent")); ok || err != nil {
		t.Fatalf("encoding of an absent key: %v, %v", ok, err)
	}
}

// countingEngine counts the deletes its batches write.
type countingEngine struct {
	engine.Engine
	deletes, ranges atomic.Int64
}

func (e *countingEngine) NewBatch() engine.Batch { return &countingBatch{e.Engine.NewBatch(), e} }

type countingBatch struct {
	engine.Batch
	e *countingEngine
}

func (b *countingBatch) Delete(k []byte) error {
	b.e.deletes.Add(1)
	return b.Batch.Delete(k)
}

func (b *countingBatch) DeleteRange(lo, hi []byte) error {
	b.e.ranges.Add(1)
	return b.Batch.DeleteRange(lo, hi)
}

// TestListDeletes checks how pops and trims delete items: a long span with
// one range tombstone (so LTRIM of a long list is O(1) in writes), a short
// one with point deletes, and an emptied list with nothing but the key's
// own deletion.
func TestListDeletes(t *testing.T) {
	items := make([]string, 5000)
	for i := range items {
		items[i] = fmt.Sprint(i)
	}
	for _, c := range []struct {
		name            string
		op              func(tx *Tx, k []byte) error
		want            []string
		deletes, range_ int64
	}{
		{"trim both ends", func(tx *Tx, k []byte) error { return tx.LTrim(0, k, 2000, 2009) }, items[2000:2010], 0, 2},
		{"trim short ends", func(tx *Tx, k []byte) error { return tx.LTrim(0, k, 3, -4) }, items[3:4997], 6, 0},
		{"pop many", func(tx *Tx, k []byte) error { _, _, err := tx.ListPop(0, k, ListRight, 100); return err }, items[:4900], 0, 1},
		{"pop few", func(tx *Tx, k []byte) error { _, _, err := tx.ListPop(0, k, ListLeft, 2); return err }, items[2:], 2, 0},
		// The key's deletion writes one range tombstone, over the only
		// sub-key family a list uses.
		{"pop all", func(tx *Tx, k []byte) error { _, _, err := tx.ListPop(0, k, ListLeft, 5000); return err }, []string{}, 1, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			eng, err := engine.OpenPebble("", engine.PebbleOptions{FS: vfs.NewMem()})
			if err != nil {
				t.Fatal(err)
			}
			ce := &countingEngine{Engine: eng}
			s, err := Open(ce, Options{Databases: 1, ReapInterval: time.Hour})
			if err != nil {
				t.Fatal(err)
			}
			defer eng.Close()
			defer s.Close()
			lrpush(t, s, "l", items...)
			ce.deletes.Store(0)
			write(t, s, []string{"l"}, func(tx *Tx) error { return c.op(tx, []byte("l")) })
			if got := lrangeAll(t, s, 0, "l"); !slices.Equal(got, c.want) {
				t.Fatalf("list has %d items, want %d", len(got), len(c.want))
			}
			if d, r := ce.deletes.Load(), ce.ranges.Load(); d != c.deletes || r != c.range_ {
				t.Fatalf("%d point deletes and %d range deletes, want %d and %d", d, r, c.deletes, c.range_)
			}
			if err := Check(s); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// --- Benchmarks ---------------------------------------------------------

// fillList appends n items to key in batches of 10,000.
func fillList(b *testing.B, s *Store, key []byte, n int) {
	const batch = 10_000
	items := make([][]byte, batch)
	for done := 0; done < n; done += batch {
		for i := range items {
			items[i] = fmt.Appendf(items[i][:0], "item:%09d", done+i)
		}
		benchWrite(b, s, key, func(tx *Tx) error {
			_, err := tx.ListPush(0, key, ListRight, items[:min(batch, n-done)], false)
			return err
		})
	}
}

// BenchmarkLIndexMiddle is LINDEX in the middle of a 1,000,000-item list:
// one metadata read and one point read, whatever the list's length.
func BenchmarkLIndexMiddle(b *testing.B) {
	for _, size := range []int{1_000, 1_000_000} {
		b.Run(fmt.Sprint(size), func(b *testing.B) {
			s := openBenchStore(b, 0, nil)
			key := []byte("big")
			fillList(b, s, key, size)
			b.ResetTimer()
			for range b.N {
				tx := s.Read(false)
				v, found, err := tx.LIndex(0, key, int64(size/2))
				tx.Close()
				if err != nil || !found || len(v) == 0 {
					b.Fatalf("LINDEX = %q, %v, %v", v, found, err)
				}
			}
		})
	}
}

// BenchmarkLRangeHeadAfterPopChurn times LRANGE key 0 99 and LINDEX key 0
// on a list whose head has been popped 200,000 times (a queue): the reads
// start at the current head, so the tombstones the pops left behind it are
// never visited.
func BenchmarkLRangeHeadAfterPopChurn(b *testing.B) {
	s := openBenchStore(b, 0, nil)
	key := []byte("queue")
	fillList(b, s, key, 1000)
	read := func(n int) time.Duration {
		start := time.Now()
		for range n {
			tx := s.Read(false)
			items, err := tx.LRange(0, key, 0, 99)
			if err == nil && len(items) != 100 {
				err = fmt.Errorf("%d items", len(items))
			}
			if err == nil {
				_, _, err = tx.LIndex(0, key, 0)
			}
			tx.Close()
			if err != nil {
				b.Fatal(err)
			}
		}
		return time.Since(start) / time.Duration(n)
	}
	before := read(2000)
	const churn = 200_000
	item := [][]byte{[]byte("item")}
	for range churn {
		benchWrite(b, s, key, func(tx *Tx) error {
			if _, err := tx.ListPush(0, key, ListRight, item, false); err != nil {
				return err
			}
			_, _, err := tx.ListPop(0, key, ListLeft, 1)
			return err
		})
	}
	b.ResetTimer()
	start := time.Now()
	for range b.N {
		read(1)
	}
	after := time.Since(start) / time.Duration(b.N)
	b.ReportMetric(float64(before.Nanoseconds()), "ns/read-before")
	b.ReportMetric(float64(after.Nanoseconds()), "ns/read-after")
	b.ReportMetric(float64(after)/float64(before), "after/before")
}

// BenchmarkListPushPop is one LPUSH or one LPOP per Tx on a list of about
// 1,000 items (the redis-benchmark pattern, without the network), and the
// queue pattern where every pop empties the list and every push recreates
// it.
func BenchmarkListPushPop(b *testing.B) {
	item := [][]byte{[]byte("xxx")}
	b.Run("steady", func(b *testing.B) {
		s := openBenchStore(b, 0, nil)
		key := []byte("l")
		fillList(b, s, key, 1000)
		b.ResetTimer()
		for i := range b.N {
			benchWrite(b, s, key, func(tx *Tx) error {
				if i%2 == 0 {
					_, err := tx.ListPush(0, key, ListLeft, item, false)
					return err
				}
				_, _, err := tx.ListPop(0, key, ListLeft, 1)
				return err
			})
		}
	})
	b.Run("empty-each-time", func(b *testing.B) {
		s := openBenchStore(b, 0, nil)
		key := []byte("l")
		b.ResetTimer()
		for i := range b.N {
			benchWrite(b, s, key, func(tx *Tx) error {
				if i%2 == 0 {
					_, err := tx.ListPush(0, key, ListLeft, item, false)
					return err
				}
				_, _, err := tx.ListPop(0, key, ListLeft, 1)
				return err
			})
		}
		// Reads of the hot key after all those deletions.
		start := time.Now()
		for range 1000 {
			tx := s.Read(false)
			_, _ = tx.LLen(0, key)
			tx.Close()
		}
		b.ReportMetric(float64(time.Since(start).Nanoseconds())/1000, "ns/llen-after")
	})
}

// BenchmarkLTrimCapped is the capped-list pattern: LPUSH then LTRIM 0 99.
func BenchmarkLTrimCapped(b *testing.B) {
	s := openBenchStore(b, 0, nil)
	key := []byte("capped")
	item := [][]byte{[]byte("event")}
	b.ResetTimer()
	for range b.N {
		benchWrite(b, s, key, func(tx *Tx) error {
			if _, err := tx.ListPush(0, key, ListLeft, item, false); err != nil {
				return err
			}
			return tx.LTrim(0, key, 0, 99)
		})
	}
}

// FuzzListRanges checks listSpan and listIndex against Redis's arithmetic
// done in big integers, for any arguments and list length.
func FuzzListRanges(f *testing.F) {
	for _, s := range [][3]int64{{0, -1, 5}, {-100, 100, 3}, {math.MinInt64, math.MaxInt64, 7}, {5, 1, 9}, {-1, -1, 0}, {3, 3, math.MaxInt64}} {
		f.Add(s[0], s[1], uint64(s[2]))
	}
	f.Fuzz(func(t *testing.T, start, stop int64, size uint64) {
		size %= 1 << 62 // lists are far shorter than 2^63
		n := new(big.Int).SetUint64(size)
		// LRANGE/LTRIM: negative counts from the end, then clamp.
		s, e := big.NewInt(start), big.NewInt(stop)
		if s.Sign() < 0 {
			s.Add(s, n)
		}
		if e.Sign() < 0 {
			e.Add(e, n)
		}
		if s.Sign() < 0 {
			s.SetInt64(0)
		}
		wantEmpty := s.Cmp(e) > 0 || s.Cmp(n) >= 0
		from, to, empty := listSpan(start, stop, size)
		if empty != wantEmpty {
			t.Fatalf("listSpan(%d, %d, %d) empty = %v", start, stop, size, empty)
		}
		if !empty {
			last := new(big.Int).Sub(n, big.NewInt(1))
			if e.Cmp(last) > 0 {
				e = last
			}
			if from != s.Uint64() || to != e.Uint64()+1 {
				t.Fatalf("listSpan(%d, %d, %d) = [%d, %d), want [%s, %s]", start, stop, size, from, to, s, e)
			}
		}
		// LINDEX/LSET: one index, negative from the end.
		i := big.NewInt(start)
		if i.Sign() < 0 {
			i.Add(i, n)
		}
		wantOK := i.Sign() >= 0 && i.Cmp(n) < 0
		pos, ok := listIndex(start, size)
		if ok != wantOK || (ok && pos != i.Uint64()) {
			t.Fatalf("listIndex(%d, %d) = %d, %v; want %s, %v", start, size, pos, ok, i, wantOK)
		}
	})
}

// BenchmarkLRange100 is redis-benchmark's LRANGE_100: LRANGE mylist 0 99
// in a reading Tx, on a list of 20,000 items of 128 bytes pushed one LPUSH
// at a time; as a slice (LRange) and streamed as the server replies
// (LRangeEach).
func BenchmarkLRange100(b *testing.B) {
	s := openBenchStore(b, 0, nil)
	key := []byte("mylist")
	item := [][]byte{bytes.Repeat([]byte("x"), 128)}
	for range 20_000 {
		benchWrite(b, s, key, func(tx *Tx) error {
			_, err := tx.ListPush(0, key, ListLeft, item, false)
			return err
		})
	}
	b.Run("LRange", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			tx := s.Read(false)
			items, err := tx.LRange(0, key, 0, 99)
			tx.Close()
			if err != nil || len(items) != 100 {
				b.Fatalf("LRANGE = %d items, %v", len(items), err)
			}
		}
	})
	b.Run("LRangeEach", func(b *testing.B) {
		b.ReportAllocs()
		var n, bytes int
		size := func(int) {}
		each := func(v []byte) { n++; bytes += len(v) }
		for range b.N {
			n = 0
			tx := s.Read(false)
			err := tx.LRangeEach(0, key, 0, 99, size, each)
			tx.Close()
			if err != nil || n != 100 {
				b.Fatalf("LRANGE = %d items, %v", n, err)
			}
		}
	})
}

// metaReadCounter counts the metadata records read through views.
type metaReadCounter struct {
	engine.Engine
	reads atomic.Int64
}

func (e *metaReadCounter) NewView() engine.Snapshot {
	return countedView{Snapshot: e.Engine.NewView(), e: e}
}

type countedView struct {
	engine.Snapshot
	e *metaReadCounter
}

func (v countedView) Get(k, dst []byte) ([]byte, error) {
	if len(k) > 0 && encoding.Family(k[0]) == encoding.FamilyMeta {
		v.e.reads.Add(1)
	}
	return v.Snapshot.Get(k, dst)
}

// TestPinnedReadsTakeMetadataFromTheCache checks that a reader pinned to a
// view (LRANGE, SMEMBERS, ZRANGE, MGET) takes its first metadata record
// from the key cache, and reads it from the view instead while a writer
// holds the key's lock: the writer may have committed a record the cache
// does not have yet.
func TestPinnedReadsTakeMetadataFromTheCache(t *testing.T) {
	var ce *metaReadCounter
	s := openCheckedStoreOver(t, Options{Databases: 1, ReapInterval: time.Hour, KeyCacheSize: testKeyCache}, func(eng engine.Engine) engine.Engine {
		ce = &metaReadCounter{Engine: eng}
		return ce
	})
	lrpush(t, s, "l", "a", "b")
	write(t, s, []string{"z"}, func(tx *Tx) error {
		_, err := tx.ZAdd(0, []byte("z"), ZAddArgs{}, []ZMember{{Score: 1, Member: []byte("m")}})
		return err
	})
	reads := []struct {
		name string
		key  string
		read func(tx *Tx) (string, error)
	}{
		{"LRANGE", "l", func(tx *Tx) (string, error) {
			items, err := tx.LRange(0, []byte("l"), 0, -1)
			return fmt.Sprint(stringsOf(items)), err
		}},
		{"ZCOUNT", "z", func(tx *Tx) (string, error) {
			n, err := tx.ZCount(0, []byte("z"), ScoreBound{Score: math.Inf(-1)}, ScoreBound{Score: math.Inf(1)})
			return fmt.Sprint(n), err
		}},
	}
	for _, r := range reads {
		for _, locked := range []bool{false, true} {
			if locked {
				s.stripes[stripeOf([]byte(r.key))].Lock()
			}
			before := ce.reads.Load()
			tx := s.Read(false)
			got, err := r.read(tx)
			tx.Close()
			if locked {
				s.stripes[stripeOf([]byte(r.key))].Unlock()
			}
			n := ce.reads.Load() - before
			switch {
			case err != nil:
				t.Fatalf("%s (locked %v): %v", r.name, locked, err)
			case !locked && n != 0:
				t.Errorf("%s read its metadata through the view %d times with the cache holding it", r.name, n)
			case locked && n != 1:
				t.Errorf("%s read its metadata through the view %d times while a writer held the key; want 1", r.name, n)
			}
			if want := map[string]string{"l": "[a b]", "z": "1"}[r.key]; got != want {
				t.Errorf("%s (locked %v) = %s, want %s", r.name, locked, got, want)
			}
		}
	}
}

// TestCachedForViewRefusesAMovedGeneration checks the other half of
// cachedForView's proof: a write that committed and reached the cache
// between the lookup and the view moves the shard's generation, and the
// cached record is then refused although no writer holds the lock.
func TestCachedForViewRefusesAMovedGeneration(t *testing.T) {
	s, _ := openTestStore(t)
	lrpush(t, s, "l", "a")
	stripe := stripeOf([]byte("l"))
	gen := s.keys.generation(stripe)
	lrpush(t, s, "l", "b")
	tx := s.Read(false)
	defer tx.Close()
	tx.pinView()
	if tx.cachedForView(tx.snap, stripe, gen) {
		t.Fatal("a record looked up before a write was taken for the view's after it")
	}
	tx2 := s.Read(false)
	defer tx2.Close()
	tx2.pinView()
	if !tx2.cachedForView(tx2.snap, stripe, s.keys.generation(stripe)) {
		t.Fatal("a record looked up with nothing written since was refused")
	}
	if tx2.cachedForView(tx2.snap, stripe, s.keys.generation(stripe)) {
		t.Fatal("a view fixed before the lookup was taken as fixed after it")
	}
}

// TestListStore replaces keys of every kind with a list, deadline and old
// members gone, and deletes the destination for an empty result.
func TestListStore(t *testing.T) {
	s, _ := openTestStore(t)
	d := []byte("d")
	writeTx(t, s, []string{"d"}, func(tx *Tx) (int64, error) { return tx.SAdd(0, d, byteSlices("x", "y")) })
	writeTx(t, s, []string{"d"}, func(tx *Tx) (bool, error) { return tx.Expire(0, d, s.nowMs()+100_000, ExpireAlways) })
	n := writeTx(t, s, []string{"d"}, func(tx *Tx) (int64, error) { return tx.ListStore(0, d, byteSlices("b", "", "a", "b")) })
	if n != 4 {
		t.Fatalf("ListStore stored %d, want 4", n)
	}
	got := readTx(t, s, func(tx *Tx) ([][]byte, error) { return tx.LRange(0, d, 0, -1) })
	if want := []string{"b", "", "a", "b"}; !slices.Equal(stringsOf(got), want) {
		t.Fatalf("list %q, want %q", stringsOf(got), want)
	}
	if dl := readTx(t, s, func(tx *Tx) (int64, error) { return tx.Deadline(0, d) }); dl != TTLPersisted {
		t.Fatalf("deadline %d survived the store", dl)
	}
	n = writeTx(t, s, []string{"d"}, func(tx *Tx) (int64, error) { return tx.ListStore(0, d, byteSlices("z")) })
	got = readTx(t, s, func(tx *Tx) ([][]byte, error) { return tx.LRange(0, d, 0, -1) })
	if n != 1 || !slices.Equal(stringsOf(got), []string{"z"}) {
		t.Fatalf("over a list: %d %q", n, stringsOf(got))
	}
	writeTx(t, s, []string{"d"}, func(tx *Tx) (int64, error) { return tx.ListStore(0, d, nil) })
	if ok := readTx(t, s, func(tx *Tx) (bool, error) { return tx.Exists(0, d) }); ok {
		t.Fatal("an empty store left the key")
	}
	if err := Check(s); err != nil {
		t.Fatal(err)
	}
}
