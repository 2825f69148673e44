package store

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/cairndb/cairn/internal/rconv"
)

// Hash field deadlines at the exact millisecond, as Redis 7.4 has them: a
// stored deadline hides the field only once it is in the past
// (hashTypeIsExpired: expireAt < now), while a deadline that a command sets
// deletes the field when it is not in the future (checkAlreadyExpired:
// when <= now). Each case runs with the field's deadline one millisecond
// behind now, at now, and one ahead.

// boundaryAheads are deadline - now for the three columns of want.
var boundaryAheads = [3]int64{-1, 0, 1}

// hashBoundaryStore opens a store and, for each key, writes a hash with a
// field "keep" = "k" without deadline, a field "f" = "5" with deadline d, a
// field "gone" with deadline d-5 (past in every column, so that HLEN has an
// expired record to subtract), and bigFill more fields; then it sets the
// clock to now.
func hashBoundaryStore(t *testing.T, keys []string, bigFill int, d, now int64) *Store {
	t.Helper()
	s, clock := openHashStore(t)
	clock.ms.Store(d - 10_000)
	for _, k := range keys {
		pairs := byteSlices("keep", "k", "f", "5", "gone", "g")
		for i := range bigFill {
			pairs = append(pairs, fmt.Appendf(nil, "fill%04d", i), []byte("v"))
		}
		hashWrite(t, s, k, func(tx *Tx) (int64, error) { return tx.HSet(0, []byte(k), pairs) })
		for _, fd := range []struct {
			field    string
			deadline int64
		}{{"f", d}, {"gone", d - 5}} {
			got := hashWrite(t, s, k, func(tx *Tx) ([]int64, error) {
				return tx.HExpire(0, []byte(k), fd.deadline, ExpireAlways, byteSlices(fd.field))
			})
			if !slices.Equal(got, []int64{HashExpireSet}) {
				t.Fatalf("HEXPIRE %s %s: %v", k, fd.field, got)
			}
		}
	}
	clock.ms.Store(now)
	return s
}

// TestHashFieldDeadlineAtNow checks every read and every write that looks
// at a stored field deadline, in a small hash and in one past Redis's
// listpack limit (HSCAN pages through those).
func TestHashFieldDeadlineAtNow(t *testing.T) {
	const d = 1_700_000_000_000
	type check func(t *testing.T, tx *Tx, key []byte) string
	fill := 0 // the hashes' fields besides "keep" and "f"
	tests := []struct {
		name  string
		write bool // run in a writing Tx on the key
		fn    check
		want  [3]string // for deadline - now = -1, 0, +1
	}{
		{"HGET", false, func(t *testing.T, tx *Tx, k []byte) string {
			v, ok, err := tx.HGet(0, k, []byte("f"))
			return result(t, err, fmt.Sprintf("%q %v", v, ok))
		}, [3]string{`"" false`, `"5" true`, `"5" true`}},
		{"HMGET", false, func(t *testing.T, tx *Tx, k []byte) string {
			vs, err := tx.HMGet(0, k, byteSlices("f", "keep"))
			return result(t, err, fmt.Sprintf("%q", vs))
		}, [3]string{`["" "k"]`, `["5" "k"]`, `["5" "k"]`}},
		{"HEXISTS", false, func(t *testing.T, tx *Tx, k []byte) string {
			ok, err := tx.HExists(0, k, []byte("f"))
			return result(t, err, fmt.Sprint(ok))
		}, [3]string{"false", "true", "true"}},
		{"HSTRLEN", false, func(t *testing.T, tx *Tx, k []byte) string {
			n, err := tx.HStrLen(0, k, []byte("f"))
			return result(t, err, fmt.Sprint(n))
		}, [3]string{"0", "1", "1"}},
		{"HLEN", false, func(t *testing.T, tx *Tx, k []byte) string {
			n, err := tx.HLen(0, k)
			return result(t, err, fmt.Sprint(n-int64(fill)))
		}, [3]string{"1", "2", "2"}},
		{"HGETALL", false, func(t *testing.T, tx *Tx, k []byte) string {
			es, err := tx.HGetAll(0, k)
			return result(t, err, fmt.Sprint(hasField(es, "f")))
		}, [3]string{"false", "true", "true"}},
		{"HSCAN", false, func(t *testing.T, tx *Tx, k []byte) string {
			var all []HashEntry
			cursor := uint64(0)
			for {
				next, es, err := tx.HScan(0, k, cursor, HScanArgs{Count: 10})
				if err != nil {
					t.Fatal(err)
				}
				all = append(all, es...)
				if cursor = next; cursor == 0 {
					break
				}
			}
			return fmt.Sprint(hasField(all, "f"))
		}, [3]string{"false", "true", "true"}},
		{"HRANDFIELD count", false, func(t *testing.T, tx *Tx, k []byte) string {
			es, err := tx.HRandFields(0, k, 1000)
			return result(t, err, fmt.Sprint(hasField(es, "f")))
		}, [3]string{"false", "true", "true"}},
		{"HPTTL", false, func(t *testing.T, tx *Tx, k []byte) string {
			ds, err := tx.HFieldDeadlines(0, k, byteSlices("f"))
			if err == nil && ds[0] > 0 {
				ds[0] -= tx.NowMs
			}
			return result(t, err, fmt.Sprint(ds))
		}, [3]string{"[-2]", "[0]", "[1]"}},
		{"HSET", true, func(t *testing.T, tx *Tx, k []byte) string {
			n, err := tx.HSet(0, k, byteSlices("f", "x"))
			return result(t, err, fmt.Sprint(n))
		}, [3]string{"1", "0", "0"}},
		{"HSETNX", true, func(t *testing.T, tx *Tx, k []byte) string {
			ok, err := tx.HSetNX(0, k, []byte("f"), []byte("x"))
			return result(t, err, fmt.Sprint(ok))
		}, [3]string{"true", "false", "false"}},
		{"HDEL", true, func(t *testing.T, tx *Tx, k []byte) string {
			n, err := tx.HDel(0, k, byteSlices("f"))
			return result(t, err, fmt.Sprint(n))
		}, [3]string{"0", "1", "1"}},
		{"HINCRBY", true, func(t *testing.T, tx *Tx, k []byte) string {
			n, err := tx.HIncrBy(0, k, []byte("f"), 1)
			return result(t, err, fmt.Sprint(n))
		}, [3]string{"1", "6", "6"}},
		{"HINCRBYFLOAT", true, func(t *testing.T, tx *Tx, k []byte) string {
			v, err := tx.HIncrByFloat(0, k, []byte("f"), rconv.LongDoubleFromInt(1))
			return result(t, err, string(v))
		}, [3]string{"1", "6", "6"}},
		{"HPERSIST", true, func(t *testing.T, tx *Tx, k []byte) string {
			r, err := tx.HPersist(0, k, byteSlices("f"))
			return result(t, err, fmt.Sprint(r))
		}, [3]string{"[-2]", "[1]", "[1]"}},
		{"HEXPIRE of the field", true, func(t *testing.T, tx *Tx, k []byte) string {
			r, err := tx.HExpire(0, k, tx.NowMs+5000, ExpireAlways, byteSlices("f"))
			return result(t, err, fmt.Sprint(r))
		}, [3]string{"[-2]", "[1]", "[1]"}},
		{"HEXPIRE GT", true, func(t *testing.T, tx *Tx, k []byte) string {
			r, err := tx.HExpire(0, k, d, ExpireGT, byteSlices("f"))
			return result(t, err, fmt.Sprint(r))
		}, [3]string{"[-2]", "[0]", "[0]"}},
		{"HGETDEL", true, func(t *testing.T, tx *Tx, k []byte) string {
			vs, err := tx.HGetDel(0, k, byteSlices("f"))
			return result(t, err, fmt.Sprintf("%q", vs))
		}, [3]string{`[""]`, `["5"]`, `["5"]`}},
		{"HGETEX PERSIST", true, func(t *testing.T, tx *Tx, k []byte) string {
			vs, err := tx.HGetEx(0, k, byteSlices("f"), ExpireAction{Persist: true})
			return result(t, err, fmt.Sprintf("%q", vs))
		}, [3]string{`[""]`, `["5"]`, `["5"]`}},
		{"HSETEX FNX", true, func(t *testing.T, tx *Tx, k []byte) string {
			ok, err := tx.HSetEx(0, k, byteSlices("f", "x"), HSetExArgs{Cond: SetNX})
			return result(t, err, fmt.Sprint(ok))
		}, [3]string{"true", "false", "false"}},
		{"HSETEX FXX", true, func(t *testing.T, tx *Tx, k []byte) string {
			ok, err := tx.HSetEx(0, k, byteSlices("f", "x"), HSetExArgs{Cond: SetXX})
			return result(t, err, fmt.Sprint(ok))
		}, [3]string{"false", "true", "true"}},
		{"HSETEX KEEPTTL", true, func(t *testing.T, tx *Tx, k []byte) string {
			_, err := tx.HSetEx(0, k, byteSlices("f", "x"), HSetExArgs{KeepTTL: true})
			if err != nil {
				t.Fatal(err)
			}
			ds, err := tx.HFieldDeadlines(0, k, byteSlices("f"))
			if err == nil && ds[0] > 0 {
				ds[0] -= tx.NowMs
			}
			return result(t, err, fmt.Sprint(ds))
		}, [3]string{"[-1]", "[0]", "[1]"}},
	}
	for _, size := range []struct {
		name    string
		bigFill int
	}{{"small", 0}, {"big", int(DefaultEncodingLimits().HashEntries) + 10}} {
		fill = size.bigFill
		for col, ahead := range boundaryAheads {
			keys := make([]string, len(tests))
			for i := range tests {
				keys[i] = fmt.Sprintf("h%d", i)
			}
			s := hashBoundaryStore(t, keys, size.bigFill, d, d-ahead)
			for i, tc := range tests {
				t.Run(fmt.Sprintf("%s/%s/deadline%+d", size.name, tc.name, ahead), func(t *testing.T) {
					k := []byte(keys[i])
					var got string
					if tc.write {
						got = hashWrite(t, s, keys[i], func(tx *Tx) (string, error) { return tc.fn(t, tx, k), nil })
					} else {
						got = readTx(t, s, func(tx *Tx) (string, error) { return tc.fn(t, tx, k), nil })
					}
					if got != tc.want[col] {
						t.Errorf("got %s, want %s", got, tc.want[col])
					}
				})
			}
		}
	}
}

// TestHashSetFieldDeadlineAtNow checks the commands that set a deadline: one
// at or before now deletes the field at once (HEXPIRE replies 2), one after
// now is kept.
func TestHashSetFieldDeadlineAtNow(t *testing.T) {
	type check func(t *testing.T, tx *Tx, key []byte, deadline int64) string
	tests := []struct {
		name string
		fn   check
		want [3]string // for deadline - now = -1, 0, +1
	}{
		{"HPEXPIREAT", func(t *testing.T, tx *Tx, k []byte, dl int64) string {
			r, err := tx.HExpire(0, k, dl, ExpireAlways, byteSlices("f"))
			return result(t, err, fmt.Sprint(r))
		}, [3]string{"[2]", "[2]", "[1]"}},
		{"HPEXPIREAT LT", func(t *testing.T, tx *Tx, k []byte, dl int64) string {
			r, err := tx.HExpire(0, k, dl, ExpireLT, byteSlices("f"))
			return result(t, err, fmt.Sprint(r))
		}, [3]string{"[2]", "[2]", "[1]"}},
		{"HGETEX PXAT", func(t *testing.T, tx *Tx, k []byte, dl int64) string {
			vs, err := tx.HGetEx(0, k, byteSlices("f"), ExpireAction{Set: true, ExpireMs: dl})
			return result(t, err, fmt.Sprintf("%q", vs))
		}, [3]string{`["5"]`, `["5"]`, `["5"]`}},
		{"HSETEX PXAT", func(t *testing.T, tx *Tx, k []byte, dl int64) string {
			ok, err := tx.HSetEx(0, k, byteSlices("f", "x"), HSetExArgs{Expire: true, ExpireMs: dl})
			return result(t, err, fmt.Sprint(ok))
		}, [3]string{"true", "true", "true"}},
	}
	for col, ahead := range boundaryAheads {
		s, clock := openHashStore(t)
		for i, tc := range tests {
			t.Run(fmt.Sprintf("%s/deadline%+d", tc.name, ahead), func(t *testing.T) {
				key := fmt.Sprintf("h%d", i)
				k := []byte(key)
				hashWrite(t, s, key, func(tx *Tx) (int64, error) { return tx.HSet(0, k, byteSlices("keep", "k", "f", "5")) })
				got := hashWrite(t, s, key, func(tx *Tx) (string, error) { return tc.fn(t, tx, k, tx.NowMs+ahead), nil })
				if got != tc.want[col] {
					t.Errorf("reply %s, want %s", got, tc.want[col])
				}
				// Whatever the command, the field is then gone exactly when
				// the deadline was not after now.
				ds := readTx(t, s, func(tx *Tx) ([]int64, error) { return tx.HFieldDeadlines(0, k, byteSlices("f")) })
				want := []int64{clock.ms.Load() + ahead}
				if ahead <= 0 {
					want = []int64{HashNoField}
				}
				if !slices.Equal(ds, want) {
					t.Errorf("deadline afterwards %v, want %v", ds, want)
				}
			})
		}
	}
}

// TestHashReapFieldAtNow checks that the reaper takes a field whose deadline
// is now, as Redis's active field expiry does (it stops at expireAt > now),
// though reads still see such a field. "gone" is reaped in every case.
func TestHashReapFieldAtNow(t *testing.T) {
	const d = 1_700_000_000_000
	for _, tc := range []struct {
		ahead  int64
		reaped int
	}{{-1, 2}, {0, 2}, {1, 1}} {
		t.Run(fmt.Sprintf("deadline%+d", tc.ahead), func(t *testing.T) {
			s := hashBoundaryStore(t, []string{"h"}, 0, d, d-tc.ahead)
			n, err := s.ReapExpiredFields(time.Minute)
			if err != nil {
				t.Fatal(err)
			}
			if n != tc.reaped {
				t.Fatalf("reaped %d, want %d", n, tc.reaped)
			}
			size := readTx(t, s, func(tx *Tx) (uint64, error) {
				info, _, err := tx.Lookup(0, []byte("h"))
				return info.Size, err
			})
			if want := uint64(3 - tc.reaped); size != want {
				t.Fatalf("%d records left, want %d", size, want)
			}
		})
	}
}

// result fails t on err and returns s.
func result(t *testing.T, err error, s string) string {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// hasField reports whether es holds field f.
func hasField(es []HashEntry, f string) bool {
	return slices.ContainsFunc(es, func(e HashEntry) bool { return string(e.Field) == f })
}
