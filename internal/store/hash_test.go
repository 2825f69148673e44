package store

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/cairndb/cairn/internal/encoding"
	"github.com/cairndb/cairn/internal/rconv"
)

// openHashStore is openTestStore that also checks the hash field-deadline
// invariants when the test ends.
func openHashStore(t *testing.T) (*Store, *testClock) {
	t.Helper()
	s, clock := openTestStore(t)
	t.Cleanup(func() {
		if err := CheckHashFields(s); err != nil {
			t.Errorf("hash invariants: %v", err)
		}
	})
	return s, clock
}

// hashWrite runs fn in a writing Tx on key and commits it.
func hashWrite[T any](t *testing.T, s *Store, key string, fn func(tx *Tx) (T, error)) T {
	t.Helper()
	return writeTx(t, s, []string{key}, fn)
}

// hashEntriesMap turns entries into field → value.
func hashEntriesMap(es []HashEntry) map[string]string {
	m := map[string]string{}
	for _, e := range es {
		m[string(e.Field)] = string(e.Value)
	}
	return m
}

func TestHashSetGetDelete(t *testing.T) {
	s, _ := openHashStore(t)
	steps := []struct {
		name string
		run  func(tx *Tx) (any, error)
		want any
	}{
		{"HSET creates", func(tx *Tx) (any, error) { return tx.HSet(0, []byte("h"), byteSlices("a", "1", "b", "2")) }, int64(2)},
		{"HSET counts only new fields", func(tx *Tx) (any, error) { return tx.HSet(0, []byte("h"), byteSlices("a", "x", "c", "3", "c", "4")) }, int64(1)},
		{"HSETNX on an existing field", func(tx *Tx) (any, error) { return tx.HSetNX(0, []byte("h"), []byte("a"), []byte("z")) }, false},
		{"HSETNX on a new field", func(tx *Tx) (any, error) { return tx.HSetNX(0, []byte("h"), []byte("e"), []byte("")) }, true},
		{"HGET", func(tx *Tx) (any, error) { v, _, err := tx.HGet(0, []byte("h"), []byte("a")); return string(v), err }, "x"},
		{"HGET the last of repeated pairs", func(tx *Tx) (any, error) { v, _, err := tx.HGet(0, []byte("h"), []byte("c")); return string(v), err }, "4"},
		{"HGET missing field", func(tx *Tx) (any, error) { _, ok, err := tx.HGet(0, []byte("h"), []byte("zz")); return ok, err }, false},
		{"HGET missing key", func(tx *Tx) (any, error) { _, ok, err := tx.HGet(0, []byte("nokey"), []byte("a")); return ok, err }, false},
		{"HMGET", func(tx *Tx) (any, error) {
			vs, err := tx.HMGet(0, []byte("h"), byteSlices("a", "zz", "e"))
			return fmt.Sprintf("%q", vs), err
		}, fmt.Sprintf("%q", [][]byte{[]byte("x"), nil, {}})},
		{"HMGET keeps an empty value apart from an absent one", func(tx *Tx) (any, error) {
			vs, err := tx.HMGet(0, []byte("h"), byteSlices("e", "zz"))
			return vs[0] != nil && vs[1] == nil, err
		}, true},
		{"HLEN", func(tx *Tx) (any, error) { return tx.HLen(0, []byte("h")) }, int64(4)},
		{"HSTRLEN", func(tx *Tx) (any, error) { return tx.HStrLen(0, []byte("h"), []byte("a")) }, int64(1)},
		{"HSTRLEN missing", func(tx *Tx) (any, error) { return tx.HStrLen(0, []byte("h"), []byte("zz")) }, int64(0)},
		{"HEXISTS", func(tx *Tx) (any, error) { return tx.HExists(0, []byte("h"), []byte("e")) }, true},
		{"HGETALL in field order", func(tx *Tx) (any, error) {
			es, err := tx.HGetAll(0, []byte("h"))
			return fmt.Sprint(hashEntriesMap(es), len(es)), err
		}, fmt.Sprint(map[string]string{"a": "x", "b": "2", "c": "4", "e": ""}, 4)},
		{"HDEL counts existing fields", func(tx *Tx) (any, error) { return tx.HDel(0, []byte("h"), byteSlices("a", "zz", "a", "b")) }, int64(2)},
		{"HDEL on a missing key", func(tx *Tx) (any, error) { return tx.HDel(0, []byte("nokey"), byteSlices("a")) }, int64(0)},
		{"HDEL of the last fields", func(tx *Tx) (any, error) { return tx.HDel(0, []byte("h"), byteSlices("c", "e")) }, int64(2)},
		{"the emptied hash is gone", func(tx *Tx) (any, error) { return tx.Exists(0, []byte("h")) }, false},
		{"HLEN of a missing key", func(tx *Tx) (any, error) { return tx.HLen(0, []byte("h")) }, int64(0)},
	}
	for _, st := range steps {
		got := hashWrite(t, s, "h", st.run)
		if !hashEqualAny(got, st.want) {
			t.Fatalf("%s: got %v, want %v", st.name, got, st.want)
		}
	}
	if n := s.DBSize(0); n != 0 {
		t.Fatalf("DBSIZE %d after the hash emptied", n)
	}
}

func hashEqualAny(a, b any) bool { return fmt.Sprintf("%#v", a) == fmt.Sprintf("%#v", b) }

func TestHashWrongType(t *testing.T) {
	s, _ := openHashStore(t)
	set(t, s, 0, "str", "v", SetArgs{})
	// A set-typed key with one member, made the way a set command would.
	write(t, s, []string{"set"}, func(tx *Tx) error {
		c, err := tx.openCollection(0, []byte("set"), encoding.TypeSet)
		if err != nil {
			return err
		}
		if err := tx.create(c); err != nil {
			return err
		}
		if err := tx.set(c, c.SubKey([]byte("m")), nil); err != nil {
			return err
		}
		c.Meta.Size = 1
		return tx.save(c)
	})
	ops := map[string]func(tx *Tx, k []byte) error{
		"HSET":    func(tx *Tx, k []byte) error { _, err := tx.HSet(0, k, byteSlices("f", "v")); return err },
		"HSETNX":  func(tx *Tx, k []byte) error { _, err := tx.HSetNX(0, k, []byte("f"), []byte("v")); return err },
		"HGET":    func(tx *Tx, k []byte) error { _, _, err := tx.HGet(0, k, []byte("f")); return err },
		"HMGET":   func(tx *Tx, k []byte) error { _, err := tx.HMGet(0, k, byteSlices("f")); return err },
		"HDEL":    func(tx *Tx, k []byte) error { _, err := tx.HDel(0, k, byteSlices("f")); return err },
		"HLEN":    func(tx *Tx, k []byte) error { _, err := tx.HLen(0, k); return err },
		"HSTRLEN": func(tx *Tx, k []byte) error { _, err := tx.HStrLen(0, k, []byte("f")); return err },
		"HEXISTS": func(tx *Tx, k []byte) error { _, err := tx.HExists(0, k, []byte("f")); return err },
		"HGETALL": func(tx *Tx, k []byte) error { _, err := tx.HGetAll(0, k); return err },
		"HINCRBY": func(tx *Tx, k []byte) error { _, err := tx.HIncrBy(0, k, []byte("f"), 1); return err },
		"HINCRBYFLOAT": func(tx *Tx, k []byte) error {
			_, err := tx.HIncrByFloat(0, k, []byte("f"), rconv.LongDoubleFromInt(1))
			return err
		},
		"HRANDFIELD":   func(tx *Tx, k []byte) error { _, _, err := tx.HRandField(0, k); return err },
		"HRANDFIELD n": func(tx *Tx, k []byte) error { _, err := tx.HRandFields(0, k, 3); return err },
		"sampler":      func(tx *Tx, k []byte) error { _, err := tx.NewHashSampler(0, k, 5); return err },
		"HSCAN":        func(tx *Tx, k []byte) error { _, _, err := tx.HScan(0, k, 0, HScanArgs{Count: 10}); return err },
		"HEXPIRE": func(tx *Tx, k []byte) error {
			_, err := tx.HExpire(0, k, tx.NowMs+1000, ExpireAlways, byteSlices("f"))
			return err
		},
		"HTTL":     func(tx *Tx, k []byte) error { _, err := tx.HFieldDeadlines(0, k, byteSlices("f")); return err },
		"HPERSIST": func(tx *Tx, k []byte) error { _, err := tx.HPersist(0, k, byteSlices("f")); return err },
		"HGETDEL":  func(tx *Tx, k []byte) error { _, err := tx.HGetDel(0, k, byteSlices("f")); return err },
		"HGETEX": func(tx *Tx, k []byte) error {
			_, err := tx.HGetEx(0, k, byteSlices("f"), ExpireAction{Persist: true})
			return err
		},
		"HSETEX": func(tx *Tx, k []byte) error {
			_, err := tx.HSetEx(0, k, byteSlices("f", "v"), HSetExArgs{})
			return err
		},
		"OBJECT ENCODING": func(tx *Tx, k []byte) error {
			_, _, err := tx.HashEncoding(0, k)
			return err
		},
	}
	for _, key := range []string{"str", "set"} {
		for name, op := range ops {
			tx := s.Begin([][]byte{[]byte(key)})
			err := op(tx, []byte(key))
			tx.Close()
			if !errors.Is(err, ErrWrongType) {
				t.Errorf("%s on a %s key: %v, want WRONGTYPE", name, key, err)
			}
		}
	}
}

func TestHashIncr(t *testing.T) {
	s, _ := openHashStore(t)
	hashWrite(t, s, "h", func(tx *Tx) (int64, error) {
		return tx.HSet(0, []byte("h"), byteSlices("n", "10", "s", "abc", "big", strconv.FormatInt(math.MaxInt64, 10), "neg", "-5", "f", "1.5"))
	})
	tests := []struct {
		field string
		delta int64
		want  int64
		err   error
	}{
		{"n", 5, 15, nil},
		{"new", -3, -3, nil},
		{"s", 1, 0, ErrHashNotInteger},
		{"f", 1, 0, ErrHashNotInteger},
		{"big", 1, 0, ErrOverflow},
		{"big", -1, math.MaxInt64 - 1, nil},
		{"neg", math.MinInt64, 0, ErrOverflow},
		{"neg", math.MaxInt64, math.MaxInt64 - 5, nil},
	}
	for _, tc := range tests {
		tx := s.Begin([][]byte{[]byte("h")})
		got, err := tx.HIncrBy(0, []byte("h"), []byte(tc.field), tc.delta)
		if err == nil {
			err = tx.Commit()
		}
		tx.Close()
		if !errors.Is(err, tc.err) || (tc.err == nil && got != tc.want) {
			t.Errorf("HINCRBY %s %d = %d, %v; want %d, %v", tc.field, tc.delta, got, err, tc.want, tc.err)
		}
	}
	floats := []struct {
		field string
		delta string
		want  string
		err   error
	}{
		{"f", "1.25", "2.75", nil},
		{"n", "0.5", "15.5", nil},
		{"newf", "3", "3", nil},
		{"s", "1", "", ErrHashNotFloat},
		{"f", "1.7976931348623157e308", "", nil},
		{"f", "inf", "", ErrNaNOrInf},
		{"big", "1.1e4932", "", nil}, // finite in a long double
		{"big", "1.1e4932", "", ErrNaNOrInf},
	}
	for _, tc := range floats {
		delta, ok := rconv.ParseLongDoubleExact([]byte(tc.delta))
		if !ok {
			t.Fatalf("ParseLongDoubleExact(%q) rejected", tc.delta)
		}
		tx := s.Begin([][]byte{[]byte("h")})
		got, err := tx.HIncrByFloat(0, []byte("h"), []byte(tc.field), delta)
		if err == nil {
			err = tx.Commit()
		}
		tx.Close()
		if !errors.Is(err, tc.err) || (tc.err == nil && tc.want != "" && string(got) != tc.want) {
			t.Errorf("HINCRBYFLOAT %s %v = %q, %v; want %q, %v", tc.field, tc.delta, got, err, tc.want, tc.err)
		}
	}
}

func TestHashFieldExpiry(t *testing.T) {
	s, clock := openHashStore(t)
	now := func() int64 { return clock.ms.Load() }
	hashWrite(t, s, "h", func(tx *Tx) (int64, error) {
		return tx.HSet(0, []byte("h"), byteSlices("a", "1", "b", "2", "c", "3", "d", "4"))
	})
	expire := func(deadline int64, cond ExpireCond, fields ...string) []int64 {
		return hashWrite(t, s, "h", func(tx *Tx) ([]int64, error) {
			return tx.HExpire(0, []byte("h"), deadline, cond, byteSlices(fields...))
		})
	}
	deadlines := func(fields ...string) []int64 {
		return readTx(t, s, func(tx *Tx) ([]int64, error) { return tx.HFieldDeadlines(0, []byte("h"), byteSlices(fields...)) })
	}
	t0 := now()
	steps := []struct {
		name string
		got  func() []int64
		want []int64
	}{
		{"set, missing field", func() []int64 { return expire(t0+1000, ExpireAlways, "a", "zz") }, []int64{HashExpireSet, HashNoField}},
		{"NX", func() []int64 { return expire(t0+5000, ExpireNX, "a", "b") }, []int64{HashNoCondition, HashExpireSet}},
		{"XX", func() []int64 { return expire(t0+2000, ExpireXX, "a", "c") }, []int64{HashExpireSet, HashNoCondition}},
		{"GT", func() []int64 { return expire(t0+3000, ExpireGT, "a", "b", "c") }, []int64{HashExpireSet, HashNoCondition, HashNoCondition}},
		{"LT", func() []int64 { return expire(t0+2500, ExpireLT, "a", "b", "c") }, []int64{HashExpireSet, HashExpireSet, HashExpireSet}},
		{"deadlines", func() []int64 { return deadlines("a", "b", "c", "d", "zz") }, []int64{t0 + 2500, t0 + 2500, t0 + 2500, HashNoTTL, HashNoField}},
		{"LT moves the earliest", func() []int64 { return expire(t0+100, ExpireLT, "c") }, []int64{HashExpireSet}},
		{"persist", func() []int64 {
			return hashWrite(t, s, "h", func(tx *Tx) ([]int64, error) { return tx.HPersist(0, []byte("h"), byteSlices("c", "d", "zz")) })
		}, []int64{HashPersisted, HashNoTTL, HashNoField}},
		{"past deadline deletes", func() []int64 { return expire(t0, ExpireAlways, "d") }, []int64{HashFieldDeleted}},
		{"after", func() []int64 { return deadlines("a", "b", "c", "d") }, []int64{t0 + 2500, t0 + 2500, HashNoTTL, HashNoField}},
	}
	for _, st := range steps {
		if got := st.got(); !slices.Equal(got, st.want) {
			t.Fatalf("%s: %v, want %v", st.name, got, st.want)
		}
		if err := CheckHashFields(s); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
	}
	hlen := func() int64 { return readTx(t, s, func(tx *Tx) (int64, error) { return tx.HLen(0, []byte("h")) }) }
	if n := hlen(); n != 3 {
		t.Fatalf("HLEN %d, want 3", n)
	}
	clock.advance(2500 * time.Millisecond)
	// During the millisecond of their deadline a and b are still there (as
	// in Redis: expired means deadline < now); TestHashFieldDeadlineAtNow
	// covers that boundary command by command.
	if n := hlen(); n != 3 {
		t.Fatalf("HLEN at the deadline %d, want 3", n)
	}
	clock.advance(time.Millisecond)
	// a and b are past their deadline but not reclaimed.
	if n := hlen(); n != 1 {
		t.Fatalf("HLEN after the deadline %d, want 1", n)
	}
	if got := deadlines("a", "b", "c"); !slices.Equal(got, []int64{HashNoField, HashNoField, HashNoTTL}) {
		t.Fatalf("deadlines after expiry: %v", got)
	}
	all := readTx(t, s, func(tx *Tx) ([]HashEntry, error) { return tx.HGetAll(0, []byte("h")) })
	if m := hashEntriesMap(all); len(m) != 1 || m["c"] != "3" {
		t.Fatalf("HGETALL after expiry: %v", m)
	}
	// Writes see the expired fields as absent too.
	if got := expire(now()+10_000, ExpireAlways, "a"); !slices.Equal(got, []int64{HashNoField}) {
		t.Fatalf("HEXPIRE of an expired field: %v", got)
	}
	if n := hashWrite(t, s, "h", func(tx *Tx) (int64, error) { return tx.HSet(0, []byte("h"), byteSlices("a", "new")) }); n != 1 {
		t.Fatalf("HSET over an expired field created %d", n)
	}
	if n := hashWrite(t, s, "h", func(tx *Tx) (int64, error) { return tx.HDel(0, []byte("h"), byteSlices("b")) }); n != 0 {
		t.Fatalf("HDEL of an expired field counted %d", n)
	}
	if n := hlen(); n != 2 {
		t.Fatalf("HLEN %d, want 2", n)
	}
}

func TestHashIncrKeepsDeadline(t *testing.T) {
	s, clock := openHashStore(t)
	t0 := clock.ms.Load()
	hashWrite(t, s, "h", func(tx *Tx) (bool, error) {
		return tx.HSetEx(0, []byte("h"), byteSlices("n", "1", "f", "1.5", "gone", "7"), HSetExArgs{Expire: true, ExpireMs: t0 + 1000})
	})
	hashWrite(t, s, "h", func(tx *Tx) (int64, error) { return tx.HIncrBy(0, []byte("h"), []byte("n"), 1) })
	hashWrite(t, s, "h", func(tx *Tx) ([]byte, error) {
		return tx.HIncrByFloat(0, []byte("h"), []byte("f"), rconv.LongDoubleFromInt(1))
	})
	got := readTx(t, s, func(tx *Tx) ([]int64, error) { return tx.HFieldDeadlines(0, []byte("h"), byteSlices("n", "f")) })
	if !slices.Equal(got, []int64{t0 + 1000, t0 + 1000}) {
		t.Fatalf("deadlines after HINCRBY: %v", got)
	}
	clock.advance(time.Second + time.Millisecond)
	// An expired field counts as absent: it starts again from 0, with no
	// deadline.
	if n := hashWrite(t, s, "h", func(tx *Tx) (int64, error) { return tx.HIncrBy(0, []byte("h"), []byte("gone"), 5) }); n != 5 {
		t.Fatalf("HINCRBY of an expired field = %d, want 5", n)
	}
	got = readTx(t, s, func(tx *Tx) ([]int64, error) { return tx.HFieldDeadlines(0, []byte("h"), byteSlices("gone", "n")) })
	if !slices.Equal(got, []int64{HashNoTTL, HashNoField}) {
		t.Fatalf("deadlines: %v", got)
	}
}

func TestHashSetExGetExGetDel(t *testing.T) {
	s, clock := openHashStore(t)
	t0 := clock.ms.Load()
	key := []byte("h")
	type result struct {
		ok     bool
		values string
		ttls   []int64
		exists bool
	}
	state := func(ok bool, vs [][]byte) result {
		r := result{ok: ok, values: fmt.Sprintf("%q", vs)}
		r.ttls = readTx(t, s, func(tx *Tx) ([]int64, error) { return tx.HFieldDeadlines(0, key, byteSlices("a", "b", "c")) })
		r.exists = readTx(t, s, func(tx *Tx) (bool, error) { return tx.Exists(0, key) })
		return r
	}
	setex := func(a HSetExArgs, kv ...string) func() result {
		return func() result {
			return state(hashWrite(t, s, "h", func(tx *Tx) (bool, error) { return tx.HSetEx(0, key, byteSlices(kv...), a) }), nil)
		}
	}
	getex := func(act ExpireAction, fields ...string) func() result {
		return func() result {
			return state(true, hashWrite(t, s, "h", func(tx *Tx) ([][]byte, error) { return tx.HGetEx(0, key, byteSlices(fields...), act) }))
		}
	}
	getdel := func(fields ...string) func() result {
		return func() result {
			return state(true, hashWrite(t, s, "h", func(tx *Tx) ([][]byte, error) { return tx.HGetDel(0, key, byteSlices(fields...)) }))
		}
	}
	none := fmt.Sprintf("%q", [][]byte(nil))
	steps := []struct {
		name string
		run  func() result
		want result
	}{
		{"FXX on a missing key creates nothing", setex(HSetExArgs{Cond: SetXX}, "a", "1"), result{false, none, []int64{-2, -2, -2}, false}},
		{"FNX on a missing key", setex(HSetExArgs{Cond: SetNX, Expire: true, ExpireMs: t0 + 5000}, "a", "1", "b", "2"), result{true, none, []int64{t0 + 5000, t0 + 5000, -2}, true}},
		{"FNX fails when one exists", setex(HSetExArgs{Cond: SetNX}, "c", "3", "a", "9"), result{false, none, []int64{t0 + 5000, t0 + 5000, -2}, true}},
		{"FXX fails when one is missing", setex(HSetExArgs{Cond: SetXX}, "a", "9", "c", "3"), result{false, none, []int64{t0 + 5000, t0 + 5000, -2}, true}},
		{"KEEPTTL keeps, plain set clears", setex(HSetExArgs{KeepTTL: true}, "a", "11"), result{true, none, []int64{t0 + 5000, t0 + 5000, -2}, true}},
		{"no expiry option clears the deadline", setex(HSetExArgs{Cond: SetXX}, "b", "22"), result{true, none, []int64{t0 + 5000, -1, -2}, true}},
		{"PX", setex(HSetExArgs{Expire: true, ExpireMs: t0 + 7000}, "c", "33"), result{true, none, []int64{t0 + 5000, -1, t0 + 7000}, true}},
		{"HGETEX without option", getex(ExpireAction{}, "a", "zz"), result{true, fmt.Sprintf("%q", [][]byte{[]byte("11"), nil}), []int64{t0 + 5000, -1, t0 + 7000}, true}},
		{"HGETEX EX", getex(ExpireAction{Set: true, ExpireMs: t0 + 9000}, "b", "zz"), result{true, fmt.Sprintf("%q", [][]byte{[]byte("22"), nil}), []int64{t0 + 5000, t0 + 9000, t0 + 7000}, true}},
		{"HGETEX PERSIST", getex(ExpireAction{Persist: true}, "a", "b"), result{true, fmt.Sprintf("%q", byteSlices("11", "22")), []int64{-1, -1, t0 + 7000}, true}},
		{"HGETEX past deadline deletes", getex(ExpireAction{Set: true, ExpireMs: t0}, "a"), result{true, fmt.Sprintf("%q", byteSlices("11")), []int64{-2, -1, t0 + 7000}, true}},
		{"HGETDEL", getdel("b", "zz", "b"), result{true, fmt.Sprintf("%q", [][]byte{[]byte("22"), nil, nil}), []int64{-2, -2, t0 + 7000}, true}},
		{"HSETEX past deadline", setex(HSetExArgs{Expire: true, ExpireMs: t0 - 1}, "a", "1", "c", "3"), result{true, none, []int64{-2, -2, -2}, false}},
	}
	for _, st := range steps {
		got := st.run()
		if fmt.Sprint(got) != fmt.Sprint(st.want) {
			t.Fatalf("%s:\n got %v\nwant %v", st.name, got, st.want)
		}
		if err := CheckHashFields(s); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
	}
}

func TestHashReapExpiredFields(t *testing.T) {
	s, clock := openHashStore(t)
	t0 := clock.ms.Load()
	// "mixed" keeps fields without deadlines; "all" loses every field;
	// "big" has more fields due at once than one reaping transaction takes.
	hashWrite(t, s, "mixed", func(tx *Tx) (int64, error) {
		return tx.HSet(0, []byte("mixed"), byteSlices("keep", "1", "a", "2", "b", "3", "c", "4"))
	})
	hashWrite(t, s, "mixed", func(tx *Tx) ([]int64, error) {
		return tx.HExpire(0, []byte("mixed"), t0+100, ExpireAlways, byteSlices("a", "b"))
	})
	hashWrite(t, s, "mixed", func(tx *Tx) ([]int64, error) {
		return tx.HExpire(0, []byte("mixed"), t0+300, ExpireAlways, byteSlices("c"))
	})
	hashWrite(t, s, "all", func(tx *Tx) (bool, error) {
		return tx.HSetEx(0, []byte("all"), byteSlices("x", "1", "y", "2"), HSetExArgs{Expire: true, ExpireMs: t0 + 200})
	})
	const bigN = reapFieldsPerTx*2 + 100
	var pairs [][]byte
	for i := range bigN {
		pairs = append(pairs, []byte(fmt.Sprintf("f%06d", i)), []byte("v"))
	}
	hashWrite(t, s, "big", func(tx *Tx) (bool, error) {
		return tx.HSetEx(0, []byte("big"), pairs, HSetExArgs{Expire: true, ExpireMs: t0 + 200})
	})
	hashWrite(t, s, "big", func(tx *Tx) (int64, error) { return tx.HSet(0, []byte("big"), byteSlices("stay", "1")) })

	sizes := func() (mixed, all, big uint64) {
		tx := s.Read(false)
		defer tx.Close()
		for _, k := range []struct {
			key string
			n   *uint64
		}{{"mixed", &mixed}, {"all", &all}, {"big", &big}} {
			info, ok, err := tx.Lookup(0, []byte(k.key))
			if err != nil {
				t.Fatal(err)
			}
			if ok {
				*k.n = info.Size
			}
		}
		return
	}
	reap := func() int {
		n, err := s.ReapExpiredFields(time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		if err := CheckHashFields(s); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := reap(); n != 0 {
		t.Fatalf("reaped %d before any deadline", n)
	}
	clock.advance(100 * time.Millisecond)
	if n := reap(); n != 2 {
		t.Fatalf("reaped %d at t0+100, want 2", n)
	}
	if m, a, b := sizes(); m != 2 || a != 2 || b != bigN+1 {
		t.Fatalf("sizes %d %d %d", m, a, b)
	}
	clock.advance(100 * time.Millisecond)
	if n := reap(); n != 2+bigN {
		t.Fatalf("reaped %d at t0+200, want %d", n, 2+bigN)
	}
	if m, a, b := sizes(); m != 2 || a != 0 || b != 1 {
		t.Fatalf("sizes %d %d %d", m, a, b)
	}
	if ok := readTx(t, s, func(tx *Tx) (bool, error) { return tx.Exists(0, []byte("all")) }); ok {
		t.Fatal("a hash whose fields all expired still exists after reaping")
	}
	clock.advance(time.Second)
	if n := reap(); n != 1 {
		t.Fatalf("reaped %d, want 1", n)
	}
	got := readTx(t, s, func(tx *Tx) ([]HashEntry, error) { return tx.HGetAll(0, []byte("mixed")) })
	if m := hashEntriesMap(got); len(m) != 1 || m["keep"] != "1" {
		t.Fatalf("mixed after reaping: %v", m)
	}
	// Nothing is left in the field-expiry index.
	it, err := s.eng.NewIter([]byte{byte(encoding.FamilyFieldExpire)}, encoding.FamilyEnd(encoding.FamilyFieldExpire))
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	if it.First() {
		t.Fatalf("field-expiry index still has %x", it.Key())
	}
}

func TestHashReapDropsStaleEntries(t *testing.T) {
	s, clock := openHashStore(t)
	t0 := clock.ms.Load()
	hashWrite(t, s, "h", func(tx *Tx) (bool, error) {
		return tx.HSetEx(0, []byte("h"), byteSlices("a", "1"), HSetExArgs{Expire: true, ExpireMs: t0 + 10})
	})
	// FLUSHDB leaves the hash's field-expiry entry behind.
	tx := s.BeginAll()
	if err := tx.FlushDB(0); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	tx.Close()
	// A key whose own deadline has passed is left to ReapExpired.
	hashWrite(t, s, "k", func(tx *Tx) (bool, error) {
		return tx.HSetEx(0, []byte("k"), byteSlices("a", "1"), HSetExArgs{Expire: true, ExpireMs: t0 + 10})
	})
	hashWrite(t, s, "k", func(tx *Tx) (bool, error) { return tx.Expire(0, []byte("k"), t0+5, ExpireAlways) })
	clock.advance(time.Second)
	if n, err := s.ReapExpiredFields(time.Minute); err != nil || n != 0 {
		t.Fatalf("ReapExpiredFields = %d, %v", n, err)
	}
	if n, err := s.ReapExpired(time.Minute); err != nil || n != 1 {
		t.Fatalf("ReapExpired = %d, %v", n, err)
	}
	it, err := s.eng.NewIter([]byte{byte(encoding.FamilyFieldExpire)}, encoding.FamilyEnd(encoding.FamilyFieldExpire))
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	if it.First() {
		t.Fatalf("field-expiry index still has %x", it.Key())
	}
}

// fillHash fills key with n fields named prefix+%07d (values "v"+i) in large
// transactions, without reading anything back.
func fillHash(tb testing.TB, s *Store, key string, n int, prefix string) {
	tb.Helper()
	const chunk = 50_000
	for start := 0; start < n; start += chunk {
		tx := s.Begin([][]byte{[]byte(key)})
		h, err := tx.openHash(0, []byte(key))
		if err != nil {
			tb.Fatal(err)
		}
		for i := start; i < min(start+chunk, n); i++ {
			f := prefix + fmt.Sprintf("%07d", i)
			if err := tx.hashSetField(h, []byte(f), []byte("v"+strconv.Itoa(i)), 0, hashField{}); err != nil {
				tb.Fatal(err)
			}
		}
		if err := tx.hashFinish(h); err != nil {
			tb.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			tb.Fatal(err)
		}
		tx.Close()
	}
}

// hashScanAll runs HSCAN to the end, calling between before each call after
// the first, and returns every field it saw and the number of calls.
func hashScanAll(t *testing.T, s *Store, key string, a HScanArgs, between func(call int)) (map[string]int, int) {
	t.Helper()
	seen := map[string]int{}
	var cursor uint64
	calls := 0
	for {
		if calls > 0 && between != nil {
			between(calls)
		}
		tx := s.Read(false)
		next, es, err := tx.HScan(0, []byte(key), cursor, a)
		tx.Close()
		if err != nil {
			t.Fatal(err)
		}
		calls++
		for _, e := range es {
			seen[string(e.Field)]++
		}
		if next == 0 {
			return seen, calls
		}
		if calls > 1_000_000 {
			t.Fatal("HSCAN does not terminate")
		}
		cursor = next
	}
}

func TestHashScanSmallHashInOneCall(t *testing.T) {
	s, _ := openHashStore(t)
	fillHash(t, s, "h", int(DefaultEncodingLimits().HashEntries), "f")
	seen, calls := hashScanAll(t, s, "h", HScanArgs{Count: 1}, nil)
	if calls != 1 || len(seen) != int(DefaultEncodingLimits().HashEntries) {
		t.Fatalf("%d calls, %d fields", calls, len(seen))
	}
	seen, _ = hashScanAll(t, s, "h", HScanArgs{Count: 1, Pattern: []byte("f000001*")}, nil)
	if len(seen) != 10 {
		t.Fatalf("MATCH: %d fields, want 10", len(seen))
	}
}

func TestHashScanCursor(t *testing.T) {
	long := string(bytes.Repeat([]byte("p"), 300))
	tests := []struct {
		name   string
		fields func(i int) string
		n      int
	}{
		{"common prefix", func(i int) string { return fmt.Sprintf("user:session:%07d", i) }, 3000},
		{"prefix longer than 255 bytes", func(i int) string { return long + fmt.Sprintf("%07d", i) }, 1000},
		{"no common prefix", func(i int) string { return fmt.Sprintf("%d:x", i*7919%100000) }, 2000},
		{"zero bytes and short fields", func(i int) string {
			b := []byte{byte(i % 3), byte(i / 3 % 256), byte(i / 768)}
			return string(bytes.TrimRight(b, "\x00"))
		}, 1500},
		{"groups sharing eight bytes after the prefix", func(i int) string { return fmt.Sprintf("k%s%05d", "aaaaaaaaaa"[:i%2*10], i) }, 600},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, _ := openHashStore(t)
			want := map[string]bool{}
			var pairs [][]byte
			for i := range tc.n {
				f := tc.fields(i)
				want[f] = true
				pairs = append(pairs, []byte(f), []byte("v"))
			}
			hashWrite(t, s, "h", func(tx *Tx) (int64, error) { return tx.HSet(0, []byte("h"), pairs) })
			for _, count := range []int{1, 7, 100} {
				seen, calls := hashScanAll(t, s, "h", HScanArgs{Count: count, NoValues: true}, nil)
				for f := range want {
					if seen[f] == 0 {
						t.Fatalf("COUNT %d: field %q never returned", count, f)
					}
				}
				if len(seen) != len(want) {
					t.Fatalf("COUNT %d: %d fields seen, want %d", count, len(seen), len(want))
				}
				if count == 1 && calls < 2 {
					t.Fatalf("COUNT 1 finished in %d call", calls)
				}
			}
		})
	}
}

func TestHashScanUnderChurn(t *testing.T) {
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(uint64(seed), 0))
	s, _ := openHashStore(t)
	field := func(i int) string { return fmt.Sprintf("item:%05d", i) }
	const n = 2000
	var pairs [][]byte
	for i := range n {
		pairs = append(pairs, []byte(field(i)), []byte("v"))
	}
	hashWrite(t, s, "h", func(tx *Tx) (int64, error) { return tx.HSet(0, []byte("h"), pairs) })
	// Fields below n/2 stay for the whole scan; the others come and go,
	// and new ones (including ones that shorten the common prefix) appear.
	seen, _ := hashScanAll(t, s, "h", HScanArgs{Count: 13}, func(call int) {
		hashWrite(t, s, "h", func(tx *Tx) (int64, error) {
			del := byteSlices(field(n/2 + rng.IntN(n/2)))
			if _, err := tx.HDel(0, []byte("h"), del); err != nil {
				return 0, err
			}
			add := fmt.Sprintf("item:%05d", n+rng.IntN(n))
			if call%50 == 0 {
				add = fmt.Sprintf("%c-new", 'a'+rng.IntN(26))
			}
			return tx.HSet(0, []byte("h"), byteSlices(add, "v"))
		})
	})
	for i := range n / 2 {
		if seen[field(i)] == 0 {
			t.Fatalf("field %q, present throughout, never returned", field(i))
		}
	}
}

func TestHashRandFields(t *testing.T) {
	for _, size := range []int{5, hashSampleAll + 500} {
		t.Run(strconv.Itoa(size), func(t *testing.T) {
			s, clock := openHashStore(t)
			fillHash(t, s, "h", size, "f")
			// Every fifth field expires.
			var gone [][]byte
			for i := 0; i < size; i += 5 {
				gone = append(gone, []byte(fmt.Sprintf("f%07d", i)))
			}
			hashWrite(t, s, "h", func(tx *Tx) ([]int64, error) {
				return tx.HExpire(0, []byte("h"), clock.ms.Load()+10, ExpireAlways, gone)
			})
			clock.advance(time.Second)
			live := size - len(gone)
			valid := func(e HashEntry) bool {
				i, err := strconv.Atoi(string(e.Field[1:]))
				return err == nil && i%5 != 0 && i < size && string(e.Value) == "v"+strconv.Itoa(i)
			}
			for _, count := range []int64{1, 3, int64(live) / 3, int64(live) - 1, int64(live), int64(live) + 10} {
				es := readTx(t, s, func(tx *Tx) ([]HashEntry, error) { return tx.HRandFields(0, []byte("h"), count) })
				if want := min(count, int64(live)); int64(len(es)) != want {
					t.Fatalf("count %d: %d fields, want %d", count, len(es), want)
				}
				distinct := map[string]bool{}
				for _, e := range es {
					if !valid(e) || distinct[string(e.Field)] {
						t.Fatalf("count %d: bad or repeated field %q=%q", count, e.Field, e.Value)
					}
					distinct[string(e.Field)] = true
				}
			}
			tx := s.Read(false)
			defer tx.Close()
			draws := int64(30 * live)
			sm, err := tx.NewHashSampler(0, []byte("h"), draws)
			if err != nil || sm == nil {
				t.Fatalf("sampler: %v %v", sm, err)
			}
			defer sm.Close()
			hits := map[string]int{}
			for range draws {
				e, err := sm.Next()
				if err != nil {
					t.Fatal(err)
				}
				if !valid(e) {
					t.Fatalf("sampler drew %q=%q", e.Field, e.Value)
				}
				hits[string(e.Field)]++
			}
			// 30 draws per field on average: a fair sampler misses none
			// and gives none 90 (each about e-30 likely).
			for f, n := range hits {
				if n >= 90 {
					t.Fatalf("field %q drawn %d times in %d draws of %d fields", f, n, draws, live)
				}
			}
			if len(hits) != live {
				t.Fatalf("%d draws reached %d of %d fields", draws, len(hits), live)
			}
			if e, ok, err := tx.HRandField(0, []byte("h")); err != nil || !ok || !valid(e) {
				t.Fatalf("HRandField = %q, %v, %v", e.Field, ok, err)
			}
		})
	}
}

func TestHashRandFieldAllExpired(t *testing.T) {
	s, clock := openHashStore(t)
	hashWrite(t, s, "h", func(tx *Tx) (bool, error) {
		return tx.HSetEx(0, []byte("h"), byteSlices("a", "1", "b", "2"), HSetExArgs{Expire: true, ExpireMs: clock.ms.Load() + 10})
	})
	clock.advance(time.Second)
	tx := s.Read(false)
	defer tx.Close()
	if _, ok, err := tx.HRandField(0, []byte("h")); ok || err != nil {
		t.Fatalf("HRandField on an all-expired hash: %v, %v", ok, err)
	}
	if es, err := tx.HRandFields(0, []byte("h"), 5); len(es) != 0 || err != nil {
		t.Fatalf("HRandFields on an all-expired hash: %v, %v", es, err)
	}
	if sm, err := tx.NewHashSampler(0, []byte("h"), 1); sm != nil || err != nil {
		t.Fatalf("sampler on an all-expired hash: %v, %v", sm, err)
	}
}

func TestHashEncoding(t *testing.T) {
	tests := []struct {
		name  string
		pairs []string
		ttl   bool
		n     int
		want  string
		// limits changes the encoding limits (CONFIG SET) first.
		limits func(*EncodingLimits)
	}{
		{"small", []string{"a", "1"}, false, 0, "listpack", nil},
		{"64-byte value", []string{"a", string(bytes.Repeat([]byte("x"), 64))}, false, 0, "listpack", nil},
		{"65-byte value", []string{"a", string(bytes.Repeat([]byte("x"), 65))}, false, 0, "hashtable", nil},
		{"65-byte field", []string{string(bytes.Repeat([]byte("x"), 65)), "1"}, false, 0, "hashtable", nil},
		{"field deadlines", []string{"a", "1"}, true, 0, "listpackex", nil},
		{"512 fields", nil, false, 512, "listpack", nil},
		{"513 fields", nil, false, 513, "hashtable", nil},
		{"entries 3, 3 fields", nil, false, 3, "listpack", func(l *EncodingLimits) { l.HashEntries = 3 }},
		{"entries 3, 4 fields", nil, false, 4, "hashtable", func(l *EncodingLimits) { l.HashEntries = 3 }},
		{"entries 0", []string{"a", "1"}, false, 0, "hashtable", func(l *EncodingLimits) { l.HashEntries = 0 }},
		{"value 1, 1-byte value", []string{"a", "1"}, false, 0, "listpack", func(l *EncodingLimits) { l.HashValue = 1 }},
		{"value 1, 2-byte value", []string{"a", "12"}, false, 0, "hashtable", func(l *EncodingLimits) { l.HashValue = 1 }},
		{"value 1, 2-byte field", []string{"ab", "1"}, false, 0, "hashtable", func(l *EncodingLimits) { l.HashValue = 1 }},
		{"value 100, 65-byte value", []string{"a", string(bytes.Repeat([]byte("x"), 65))}, false, 0, "listpack", func(l *EncodingLimits) { l.HashValue = 100 }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, clock := openHashStore(t)
			if tc.limits != nil {
				l := DefaultEncodingLimits()
				tc.limits(&l)
				s.SetEncodingLimits(l)
			}
			if tc.n > 0 {
				fillHash(t, s, "h", tc.n, "f")
			} else {
				hashWrite(t, s, "h", func(tx *Tx) (bool, error) {
					return tx.HSetEx(0, []byte("h"), byteSlices(tc.pairs...), HSetExArgs{Expire: tc.ttl, ExpireMs: clock.ms.Load() + 1000})
				})
			}
			tx := s.Read(false)
			defer tx.Close()
			got, ok, err := tx.HashEncoding(0, []byte("h"))
			if err != nil || !ok || got != tc.want {
				t.Fatalf("HashEncoding = %q, %v, %v; want %q", got, ok, err, tc.want)
			}
		})
	}
}

// hashModel is the reference a randomized run is checked against: field →
// value and deadline, where a deadline at or before now means absent.
type hashModel map[string]struct {
	value  string
	expire int64
}

// live is Redis's rule: a field lives through the millisecond of its
// deadline.
func (m hashModel) live(f string, now int64) bool {
	e, ok := m[f]
	return ok && (e.expire == 0 || e.expire >= now)
}

// TestHashModel drives random hash commands, including field deadlines,
// clock jumps and reaping, against hashModel, checking every reply, every
// field's state and the store's invariants as it goes.
func TestHashModel(t *testing.T) {
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(uint64(seed), 1))
	s, clock := openHashStore(t)
	key := []byte("h")
	model := hashModel{}
	fields := byteSlices("f0", "f1", "f2", "f3", "f4", "f5", "f6", "f7")
	pick := func() []byte { return fields[rng.IntN(len(fields))] }
	picks := func() [][]byte {
		out := make([][]byte, 1+rng.IntN(3))
		for i := range out {
			out[i] = pick()
		}
		return out
	}
	deadline := func(now int64) int64 { return now - 50 + rng.Int64N(400) }
	for step := range 3000 {
		now := clock.ms.Load()
		tx := s.Begin([][]byte{key})
		var got, want any
		var err error
		switch op := rng.IntN(10); op {
		case 0:
			var pairs [][]byte
			var created int64
			for _, f := range picks() {
				v := strconv.Itoa(rng.IntN(100))
				if rng.IntN(8) == 0 {
					v = "x"
				}
				pairs = append(pairs, f, []byte(v))
			}
			seenNew := map[string]bool{}
			for i := 0; i < len(pairs); i += 2 {
				f := string(pairs[i])
				if !model.live(f, now) && !seenNew[f] {
					created++
					seenNew[f] = true
				}
				model[f] = struct {
					value  string
					expire int64
				}{string(pairs[i+1]), 0}
			}
			got, err = tx.HSet(0, key, pairs)
			want = created
		case 1:
			var n int64
			fs := picks()
			for _, f := range fs {
				if model.live(string(f), now) {
					n++
				}
				delete(model, string(f))
			}
			got, err = tx.HDel(0, key, fs)
			want = n
		case 2:
			f := string(pick())
			e := model[f]
			cur, expire := int64(0), int64(0)
			bad := false
			if model.live(f, now) {
				expire = e.expire
				var perr error
				cur, perr = strconv.ParseInt(e.value, 10, 64)
				bad = perr != nil
			}
			got, err = tx.HIncrBy(0, key, []byte(f), 3)
			if bad {
				want, got = ErrHashNotInteger, err
				err = nil
			} else {
				want = cur + 3
				model[f] = struct {
					value  string
					expire int64
				}{strconv.FormatInt(cur+3, 10), expire}
			}
		case 3:
			dl := deadline(now)
			cond := []ExpireCond{ExpireAlways, ExpireNX, ExpireXX, ExpireGT, ExpireLT}[rng.IntN(5)]
			fs := picks()
			var res []int64
			for _, fb := range fs {
				f := string(fb)
				e := model[f]
				switch {
				case !model.live(f, now):
					res = append(res, HashNoField)
				case !cond.allows(e.expire, dl):
					res = append(res, HashNoCondition)
				case dl <= now:
					res = append(res, HashFieldDeleted)
					delete(model, f)
				default:
					res = append(res, HashExpireSet)
					e.expire = dl
					model[f] = e
				}
			}
			got, err = tx.HExpire(0, key, dl, cond, fs)
			want = res
		case 4:
			fs := picks()
			var res []int64
			for _, fb := range fs {
				f := string(fb)
				e := model[f]
				switch {
				case !model.live(f, now):
					res = append(res, HashNoField)
				case e.expire == 0:
					res = append(res, HashNoTTL)
				default:
					res = append(res, HashPersisted)
					e.expire = 0
					model[f] = e
				}
			}
			got, err = tx.HPersist(0, key, fs)
			want = res
		case 5:
			fs := picks()
			act := []ExpireAction{{}, {Persist: true}, {Set: true, ExpireMs: deadline(now)}}[rng.IntN(3)]
			var res [][]byte
			for _, fb := range fs {
				f := string(fb)
				e := model[f]
				if !model.live(f, now) {
					res = append(res, nil)
					continue
				}
				res = append(res, []byte(e.value))
				switch {
				case act.Set && act.ExpireMs <= now:
					delete(model, f)
				case act.Set:
					e.expire = act.ExpireMs
					model[f] = e
				case act.Persist:
					e.expire = 0
					model[f] = e
				}
			}
			got, err = tx.HGetEx(0, key, fs, act)
			got, want = fmt.Sprintf("%q", got), fmt.Sprintf("%q", res)
		case 6:
			fs := picks()
			var res [][]byte
			for _, fb := range fs {
				f := string(fb)
				if model.live(f, now) {
					res = append(res, []byte(model[f].value))
					delete(model, f)
				} else {
					res = append(res, nil)
				}
			}
			got, err = tx.HGetDel(0, key, fs)
			got, want = fmt.Sprintf("%q", got), fmt.Sprintf("%q", res)
		case 7:
			a := HSetExArgs{Cond: []SetCond{SetAlways, SetNX, SetXX}[rng.IntN(3)]}
			switch rng.IntN(3) {
			case 1:
				a.Expire, a.ExpireMs = true, deadline(now)
			case 2:
				a.KeepTTL = true
			}
			var pairs [][]byte
			for _, f := range picks() {
				pairs = append(pairs, f, []byte(strconv.Itoa(rng.IntN(100))))
			}
			ok := true
			for i := 0; i < len(pairs) && a.Cond != SetAlways; i += 2 {
				if model.live(string(pairs[i]), now) != (a.Cond == SetXX) {
					ok = false
				}
			}
			for i := 0; ok && i < len(pairs); i += 2 {
				f := string(pairs[i])
				e := model[f]
				switch {
				case a.Expire && a.ExpireMs <= now:
					delete(model, f)
					continue
				case a.Expire:
					e.expire = a.ExpireMs
				case a.KeepTTL && model.live(f, now):
				default:
					e.expire = 0
				}
				e.value = string(pairs[i+1])
				model[f] = e
			}
			got, err = tx.HSetEx(0, key, pairs, a)
			want = ok
		case 8:
			clock.advance(time.Duration(rng.IntN(120)) * time.Millisecond)
			got, want = nil, nil
		case 9:
			got, want = nil, nil
			tx.Close()
			tx = nil
			if _, err := s.ReapExpiredFields(time.Minute); err != nil {
				t.Fatal(err)
			}
			// The reaper takes the fields whose deadline is now too (as
			// Redis's active field expiry does), so the hash holds only
			// fields whose deadline is ahead, and exists only if it has any.
			live := 0
			for f, e := range model {
				if e.expire != 0 && e.expire <= clock.ms.Load() {
					delete(model, f)
					continue
				}
				live++
			}
			exists := readTx(t, s, func(tx *Tx) (bool, error) { return tx.Exists(0, key) })
			info := readTx(t, s, func(tx *Tx) (KeyInfo, error) { i, _, err := tx.Lookup(0, key); return i, err })
			if exists != (live > 0) || info.Size != uint64(live) {
				t.Fatalf("step %d: after reaping, exists %v with %d records, %d live fields", step, exists, info.Size, live)
			}
		}
		if tx != nil {
			if err == nil {
				err = tx.Commit()
			}
			tx.Close()
		}
		if err != nil {
			t.Fatalf("step %d: %v", step, err)
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("step %d: got %v, want %v", step, got, want)
		}
		checkHashModel(t, s, step, key, fields, model, clock.ms.Load())
	}
}

func checkHashModel(t *testing.T, s *Store, step int, key []byte, fields [][]byte, model hashModel, now int64) {
	t.Helper()
	tx := s.Read(false)
	defer tx.Close()
	all, err := tx.HGetAll(0, key)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{}
	for f, e := range model {
		if model.live(f, now) {
			want[f] = e.value
		}
	}
	if got := hashEntriesMap(all); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("step %d: HGETALL %v, want %v", step, got, want)
	}
	if n, err := tx.HLen(0, key); err != nil || n != int64(len(want)) {
		t.Fatalf("step %d: HLEN %d, %v; want %d", step, n, err, len(want))
	}
	ds, err := tx.HFieldDeadlines(0, key, fields)
	if err != nil {
		t.Fatal(err)
	}
	for i, f := range fields {
		w := int64(HashNoField)
		if model.live(string(f), now) {
			w = HashNoTTL
			if e := model[string(f)].expire; e != 0 {
				w = e
			}
		}
		if ds[i] != w {
			t.Fatalf("step %d: field %s deadline %d, want %d", step, f, ds[i], w)
		}
	}
	if step%10 == 0 {
		if err := CheckHashFields(s); err != nil {
			t.Fatalf("step %d: %v", step, err)
		}
		if err := Check(s); err != nil {
			t.Fatalf("step %d: %v", step, err)
		}
	}
}

// --- Benchmarks ---------------------------------------------------------

// openHashBench opens a store on an on-disk Pebble, as a server runs, with a
// clock the benchmark can move.
func openHashBench(b *testing.B) (*Store, *testClock) {
	b.Helper()
	clock := &testClock{}
	clock.ms.Store(time.Now().UnixMilli())
	return openBenchStore(b, 0, clock.now), clock
}

// BenchmarkHGet is HGET of a random field: one metadata read and one point
// read, whatever the hash's size.
func BenchmarkHGet(b *testing.B) {
	for _, size := range []int{1_000, 1_000_000} {
		b.Run(strconv.Itoa(size), func(b *testing.B) {
			s, _ := openHashBench(b)
			fillHash(b, s, "big", size, "field:")
			fields := make([][]byte, 4096)
			for i := range fields {
				fields[i] = fmt.Appendf(nil, "field:%07d", rand.IntN(size))
			}
			b.ResetTimer()
			for i := range b.N {
				tx := s.Read(false)
				v, ok, err := tx.HGet(0, []byte("big"), fields[i%len(fields)])
				tx.Close()
				if err != nil || !ok || len(v) == 0 {
					b.Fatalf("HGET = %q, %v, %v", v, ok, err)
				}
			}
		})
	}
}

// BenchmarkHSet overwrites a random field of the hash, one per transaction.
func BenchmarkHSet(b *testing.B) {
	for _, size := range []int{1_000, 1_000_000} {
		b.Run(strconv.Itoa(size), func(b *testing.B) {
			s, _ := openHashBench(b)
			fillHash(b, s, "big", size, "field:")
			key := []byte("big")
			b.ResetTimer()
			for range b.N {
				f := fmt.Appendf(nil, "field:%07d", rand.IntN(size))
				tx := s.Begin([][]byte{key})
				_, err := tx.HSet(0, key, [][]byte{f, []byte("new value")})
				if err == nil {
					err = tx.Commit()
				}
				tx.Close()
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkHashBigOps times the commands that read more than one field on
// a 1,000,000-field hash: an HSCAN page from a random cursor (a seek and
// COUNT records), HLEN while a thousand expired fields wait for the reaper
// (a scan of those only), and HRANDFIELD (a pass over the hash: O(N), see
// hashSampleAll).
func BenchmarkHashBigOps(b *testing.B) {
	const size = 1_000_000
	s, clock := openHashBench(b)
	fillHash(b, s, "big", size, "field:")
	key := []byte("big")
	b.Run("HSCAN-page", func(b *testing.B) {
		for range b.N {
			f := fmt.Appendf(nil, "field:%07d", rand.IntN(size))
			cursor, _ := scanCursor(nil, f, len("field:"))
			tx := s.Read(false)
			_, es, err := tx.HScan(0, key, cursor, HScanArgs{Count: 10})
			tx.Close()
			if err != nil || len(es) < 10 && f[len(f)-1] < '9' {
				b.Fatalf("HSCAN: %d entries, %v", len(es), err)
			}
		}
	})
	b.Run("HLEN-1000-expired", func(b *testing.B) {
		var gone [][]byte
		for i := range 1000 {
			gone = append(gone, fmt.Appendf(nil, "field:%07d", i*997))
		}
		tx := s.Begin([][]byte{key})
		if _, err := tx.HExpire(0, key, clock.ms.Load()+1, ExpireAlways, gone); err != nil {
			b.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			b.Fatal(err)
		}
		tx.Close()
		clock.advance(time.Second)
		b.ResetTimer()
		for range b.N {
			tx := s.Read(false)
			n, err := tx.HLen(0, key)
			tx.Close()
			if err != nil || n != size-1000 {
				b.Fatalf("HLEN = %d, %v", n, err)
			}
		}
	})
	b.Run("HRANDFIELD", func(b *testing.B) {
		for range b.N {
			tx := s.Read(false)
			_, ok, err := tx.HRandField(0, key)
			tx.Close()
			if err != nil || !ok {
				b.Fatalf("HRANDFIELD: %v, %v", ok, err)
			}
		}
	})
}

// BenchmarkHashDelete1M is DEL of a 1,000,000-field hash: a metadata delete
// and one range tombstone per family, whatever the size.
func BenchmarkHashDelete1M(b *testing.B) {
	s, _ := openHashBench(b)
	for i := range b.N {
		b.StopTimer()
		key := fmt.Sprintf("big%d", i)
		fillHash(b, s, key, 1_000_000, "field:")
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

// BenchmarkReapExpiredFields reports how fast the reaper reclaims fields:
// 100,000 fields of one hash, due together.
func BenchmarkReapExpiredFields(b *testing.B) {
	const n = 100_000
	s, clock := openHashBench(b)
	for i := range b.N {
		b.StopTimer()
		key := fmt.Sprintf("h%d", i)
		fillHash(b, s, key, n, "field:")
		var fields [][]byte
		for j := range n {
			fields = append(fields, fmt.Appendf(nil, "field:%07d", j))
		}
		tx := s.Begin([][]byte{[]byte(key)})
		if _, err := tx.HExpire(0, []byte(key), clock.ms.Load()+1, ExpireAlways, fields); err != nil {
			b.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			b.Fatal(err)
		}
		tx.Close()
		clock.advance(time.Second)
		b.StartTimer()
		got := 0
		for got < n {
			m, err := s.ReapExpiredFields(time.Minute)
			if err != nil {
				b.Fatal(err)
			}
			got += m
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "fields/s")
}

// FuzzHashScanCursor feeds HSCAN arbitrary cursors (a client may send any
// u64) over hashes of arbitrary fields: it must not fail, must return only
// fields of the hash, and a scan resumed from any cursor must reach the end.
func FuzzHashScanCursor(f *testing.F) {
	f.Add(uint64(0), []byte("user:1\x00user:2\x00user:10"), uint8(3))
	f.Add(uint64(1<<63), []byte("a\x00b\x00\x00\x00zzzzzzzzzz"), uint8(1))
	f.Add(uint64(math.MaxUint64), []byte("same-prefix-0001\x00same-prefix-0002"), uint8(200))
	f.Add(uint64(5<<56|0x41), []byte("aaaaa\x00aaaab\x00aaaaaaaaaaaaaaaaaaaaaaaaa"), uint8(130))
	f.Fuzz(func(t *testing.T, cursor uint64, names []byte, n uint8) {
		s, _ := openTestStore(t)
		// Enough fields to leave the one-call path: the names given, then
		// numbered variants of them.
		parts := bytes.Split(names, []byte{0})
		want := map[string]bool{}
		var pairs [][]byte
		for i := range int(DefaultEncodingLimits().HashEntries) + 1 + int(n) {
			f := append(bytes.Clone(parts[i%len(parts)]), strconv.Itoa(i/len(parts))...)
			want[string(f)] = true
			pairs = append(pairs, f, []byte("v"))
		}
		write(t, s, []string{"h"}, func(tx *Tx) error {
			_, err := tx.HSet(0, []byte("h"), pairs)
			return err
		})
		for calls := 0; ; calls++ {
			if calls > len(want)+2 {
				t.Fatalf("no end after %d calls", calls)
			}
			tx := s.Read(false)
			next, es, err := tx.HScan(0, []byte("h"), cursor, HScanArgs{Count: 1 + int(n)%20})
			tx.Close()
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range es {
				if !want[string(e.Field)] {
					t.Fatalf("HSCAN returned %q, not a field", e.Field)
				}
			}
			if next == 0 {
				return
			}
			cursor = next
		}
	})
}
